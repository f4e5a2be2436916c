// gpukill's MCP server under protocol revision 2026-07-28 (stateless: no initialize, no
// session, server/discover, per-request _meta), driven by the official TypeScript SDK's
// 2.x client (@modelcontextprotocol/client), which speaks that revision, against the
// simulated host tests/integration/mcp_test.cpp set up.
//
//   MCP_E2E  JSON: {gpukill, kill_pid, token, ...} (the same document e2e.mjs reads)
// The simulator's environment (GPUKILL_*) is inherited and passed to gpukill.
// Prints one JSON line {"ok": true, "checks": [...]} and exits 0 when every check passed.
import assert from "node:assert/strict";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startHttp as startGpukillHttp, stopChild, withTimeout } from "./e2e_support.mjs";

const REVISION = "2026-07-28";
const cfg = JSON.parse(process.env.MCP_E2E);
const checks = [];
const check = (name) => checks.push(name);


function newClient(mode) {
    return new Client({ name: "gpukill-e2e-stateless", version: "2.0.0" }, { versionNegotiation: { mode } });
}

async function call(client, name, args = {}) {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(result.content.map((c) => c.text).join(" "));
    return result;
}

// What every connection checks, whatever the transport: the revision negotiated, the
// tools, a read, a resource, and a kill planned and executed with the memory back.
async function exercise(client, label, { kill }) {
    assert.equal(client.getNegotiatedProtocolVersion(), REVISION, `${label}: negotiated revision`);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ["list_gpus", "list_processes", "plan_kill", "execute_kill_plan"]) {
        assert.ok(tools.includes(name), `${label}: ${name} listed`);
    }
    const gpus = await call(client, "list_gpus");
    assert.ok(gpus.structuredContent.gpus.length >= 2, `${label}: list_gpus`);
    const snapshot = await client.readResource({ uri: "gpukill://snapshot" });
    assert.equal(JSON.parse(snapshot.contents[0].text).schema_version, 1, `${label}: snapshot`);
    check(`${label}: ${REVISION} negotiated; tools, a read tool and a resource answered`);
    if (!kill) return;
    const plan = await call(client, "plan_kill", { pids: [cfg.kill_pid], force: true });
    assert.deepEqual(plan.structuredContent.targets.map((t) => t.pid), [cfg.kill_pid]);
    const done = await call(client, "execute_kill_plan", { plan_id: plan.structuredContent.plan_id });
    assert.equal(done.structuredContent.exit_code, 0, JSON.stringify(done.structuredContent));
    assert.ok(done.structuredContent.gpus.every((g) => g.released), "the memory came back");
    check(`${label}: plan and execute a kill; memory verified back`);
}

// Raw POSTs: what the revision requires of the HTTP headers, and that no session opens.
async function rawChecks(url, token) {
    const envelope = {
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": {},
    };
    const post = (body, headers) =>
        fetch(url, {
            method: "POST",
            headers: {
                "Content-Type": "application/json",
                Accept: "application/json, text/event-stream",
                Authorization: `Bearer ${token}`,
                ...headers,
            },
            body: JSON.stringify(body),
        });
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } };
    const good = await post(list, { "MCP-Protocol-Version": REVISION, "Mcp-Method": "tools/list" });
    assert.equal(good.status, 200);
    assert.equal(good.headers.get("mcp-session-id"), null, "no session in 2026-07-28");
    assert.equal((await good.json()).result.resultType, "complete");

    const noMethod = await post(list, { "MCP-Protocol-Version": REVISION });
    assert.equal(noMethod.status, 400);
    assert.equal((await noMethod.json()).error.code, -32020);
    const wrongMethod = await post(list, { "MCP-Protocol-Version": REVISION, "Mcp-Method": "prompts/list" });
    assert.equal(wrongMethod.status, 400);
    const callTool = {
        jsonrpc: "2.0", id: 2, method: "tools/call",
        params: { _meta: envelope, name: "list_gpus", arguments: {} },
    };
    const wrongName = await post(callTool, {
        "MCP-Protocol-Version": REVISION, "Mcp-Method": "tools/call", "Mcp-Name": "list_processes",
    });
    assert.equal(wrongName.status, 400);
    assert.equal((await wrongName.json()).error.code, -32020);
    const base64Name = await post(callTool, {
        "MCP-Protocol-Version": REVISION, "Mcp-Method": "tools/call",
        "Mcp-Name": `=?base64?${Buffer.from("list_gpus").toString("base64")}?=`,
    });
    assert.equal(base64Name.status, 200, "a base64 Mcp-Name is decoded");

    const future = { ...list, params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } };
    const unsupported = await post(future, { "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list" });
    assert.equal(unsupported.status, 400);
    const refusal = await unsupported.json();
    assert.equal(refusal.error.code, -32022);
    assert.deepEqual(refusal.error.data.supported, [REVISION]);
    const noEnvelope = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" },
                                  { "MCP-Protocol-Version": REVISION, "Mcp-Method": "tools/list" });
    assert.equal(noEnvelope.status, 400);
    assert.equal((await noEnvelope.json()).error.code, -32602);
    check("http: headers must agree with the body (-32020), unknown revision -32022, no session");
}

async function main() {
    // stdio, pinned to the stateless revision: the client fails if server/discover does
    // not offer it, and nothing here sends initialize.
    {
        const client = newClient({ pin: REVISION });
        const transport = new StdioClientTransport({
            command: cfg.gpukill, args: ["mcp", "--allow-actions"], env: process.env, stderr: "ignore",
        });
        await withTimeout(client.connect(transport), 30000, "stdio connect");
        await exercise(client, "stdio", { kill: true });
        await client.close();
    }
    // stdio, auto: the client probes with server/discover and keeps 2026-07-28.
    {
        const client = newClient("auto");
        const transport = new StdioClientTransport({
            command: cfg.gpukill, args: ["mcp"], env: process.env, stderr: "ignore",
        });
        await withTimeout(client.connect(transport), 30000, "stdio auto connect");
        assert.equal(client.getNegotiatedProtocolVersion(), REVISION);
        check("stdio auto: the probe settles on 2026-07-28");
        await client.close();
    }
    // Streamable HTTP with a token, pinned.
    {
        const { child, url } = await startGpukillHttp(cfg.gpukill, ["--allow-actions", "--token-file", cfg.token_file]);
        try {
            const client = newClient({ pin: REVISION });
            const transport = new StreamableHTTPClientTransport(new URL(url), {
                requestInit: { headers: { Authorization: `Bearer ${cfg.token}` } },
            });
            await withTimeout(client.connect(transport), 30000, "http connect");
            await exercise(client, "http", { kill: false });
            await client.close();
            await rawChecks(url, cfg.token);
        } finally {
            await stopChild(child);
        }
    }
    console.log(JSON.stringify({ ok: true, checks }));
}

main().catch((error) => {
    console.log(JSON.stringify({ ok: false, checks, error: String(error && error.stack ? error.stack : error) }));
    process.exit(1);
});
