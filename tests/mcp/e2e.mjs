// gpukill's MCP server driven by the official TypeScript SDK client, end to end against
// a simulated host that tests/integration/mcp_test.cpp set up (real gpusim workloads,
// two of them in container cgroups whose images a replayed Docker API names).
//
//   MCP_E2E_TRANSPORT  stdio | http
//   MCP_E2E            JSON: {gpukill, kill_pid, stale_pids: [a, b], official_pid,
//                      unofficial_pid, plain_pid, token_file, token}
// The simulator's environment (GPUKILL_*) is inherited and passed to gpukill.
// Prints one JSON line {"ok": true, ...} and exits 0 when every check passed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import http from "node:http";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttp as startGpukillHttp, stopChild, withTimeout } from "./e2e_support.mjs";

const cfg = JSON.parse(process.env.MCP_E2E);
const kind = process.env.MCP_E2E_TRANSPORT;
const OFFICIAL_IMAGE = "^(docker\\.io/)?(library/)?[a-z0-9._-]+(:[^/]*)?$";
const checks = [];
const check = (name) => checks.push(name);


async function connect(args, token) {
    const client = new Client({ name: "gpukill-e2e", version: "1.0.0" });
    let child = null;
    let url = null;
    let transport;
    if (kind === "stdio") {
        transport = new StdioClientTransport({
            command: cfg.gpukill,
            args: ["mcp", ...args],
            env: process.env,
            stderr: "ignore",
        });
    } else {
        ({ child, url } = await startGpukillHttp(cfg.gpukill, args));
        const headers = token ? { Authorization: `Bearer ${token}` } : {};
        transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    }
    await withTimeout(client.connect(transport), 30000, "initialize");
    return {
        client,
        url,
        async close() {
            await client.close();
            if (child) assert.equal(await stopChild(child), 0, "the HTTP server ends cleanly");
        },
    };
}

async function call(client, name, args = {}) {
    return withTimeout(client.callTool({ name, arguments: args }), 60000, `tools/call ${name}`);
}

function byName(tools) {
    return Object.fromEntries(tools.map((tool) => [tool.name, tool]));
}

async function readOnly() {
    const { client, close } = await connect([]);
    assert.equal(client.getServerVersion().name, "gpukill");
    const tools = byName((await client.listTools()).tools);
    for (const name of ["list_gpus", "list_processes", "explain_gpu", "rogue_scan", "check",
                        "audit_actions", "audit_usage", "guard_test"]) {
        assert.ok(tools[name], `${name} is listed`);
        assert.equal(tools[name].annotations.readOnlyHint, true);
        assert.equal(tools[name].annotations.destructiveHint, false);
        assert.ok(tools[name].outputSchema, `${name} has an output schema`);
    }
    for (const name of ["plan_kill", "execute_kill_plan", "reset_gpu"]) {
        assert.equal(tools[name], undefined, `${name} is absent without --allow-actions`);
    }
    check("read-only tools listed, action tools absent");

    const gpus = await call(client, "list_gpus");
    assert.equal(gpus.isError, false);
    assert.ok(gpus.structuredContent.gpus.length >= 2);
    const processes = await call(client, "list_processes", { gpu: 0 });
    assert.ok(processes.structuredContent.processes.some((p) => p.pid === cfg.kill_pid));
    const official = await call(client, "list_processes", { gpu: 1, image: "^python:" });
    assert.deepEqual(official.structuredContent.processes.map((p) => p.pid), [cfg.official_pid]);
    assert.equal(official.structuredContent.processes[0].container.image, "python:3.11");
    const explained = await call(client, "explain_gpu", { gpu: 0 });
    assert.ok(explained.structuredContent.listed_holders.some((h) => h.pid === cfg.kill_pid));
    assert.equal(explained.structuredContent.soft_locked, false);
    for (const [name, args] of [["rogue_scan", {}], ["check", { rogue: false }],
                                ["audit_actions", { hours: 1 }], ["audit_usage", {}],
                                ["guard_test", { policy: "mode: dry-run\n" }]]) {
        const result = await call(client, name, args);
        assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
        assert.equal(typeof result.structuredContent.schema_version, "number", name);
    }
    const badArgs = await call(client, "explain_gpu", { gpu: 0, extra: 1 });
    assert.equal(badArgs.isError, true);
    check("every read tool answered with structuredContent");

    await assert.rejects(call(client, "plan_kill", { pids: [cfg.kill_pid] }),
                         /unknown tool: plan_kill/);
    check("plan_kill refused without --allow-actions");

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(resources.includes("gpukill://snapshot") && resources.includes("gpukill://gpu/1"));
    const snapshot = await client.readResource({ uri: "gpukill://snapshot" });
    assert.ok(JSON.parse(snapshot.contents[0].text).processes.length >= 1);
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    assert.deepEqual(prompts.sort(), ["explain_gpu_memory", "free_gpu"]);
    const prompt = await client.getPrompt({ name: "free_gpu", arguments: { gpu: "1" } });
    assert.match(prompt.messages[0].content.text, /plan_kill/);
    check("resources and prompts");
    await close();
}

async function actions() {
    const args = ["--allow-actions"];
    if (kind === "http") args.push("--token-file", cfg.token_file);
    const { client, close } = await connect(args, cfg.token);
    const tools = byName((await client.listTools()).tools);
    assert.equal(tools.execute_kill_plan.annotations.destructiveHint, true);
    assert.equal(tools.execute_kill_plan.annotations.readOnlyHint, false);

    for (const pid of [4294967295, "4294967295", 0, 1, -1]) {
        const refused = await call(client, "plan_kill", { pids: [pid] });
        assert.equal(refused.isError, true, `PID ${pid} is refused`);
        assert.equal(refused.structuredContent, undefined);
    }
    check("PIDs 4294967295, 0, 1 and -1 refused by the plan's gate");

    const plan = await call(client, "plan_kill", { pids: [cfg.kill_pid], force: true });
    assert.equal(plan.isError, false, JSON.stringify(plan.content));
    assert.deepEqual(plan.structuredContent.targets.map((t) => t.pid), [cfg.kill_pid]);
    const done = await call(client, "execute_kill_plan", { plan_id: plan.structuredContent.plan_id });
    assert.equal(done.isError, false, JSON.stringify(done.content));
    assert.equal(done.structuredContent.exit_code, 0);
    assert.ok(done.structuredContent.gpus.every((g) => g.released), "the memory came back");
    check("plan and execute a kill; memory verified back");

    const again = await call(client, "execute_kill_plan", { plan_id: plan.structuredContent.plan_id });
    assert.equal(again.isError, true, "a plan runs once");
    const [first, second] = cfg.stale_pids;
    const both = await call(client, "plan_kill", { pids: [first, second] });
    const one = await call(client, "plan_kill", { pids: [second] });
    assert.equal((await call(client, "execute_kill_plan", { plan_id: one.structuredContent.plan_id })).isError, false);
    const stale = await call(client, "execute_kill_plan", { plan_id: both.structuredContent.plan_id });
    assert.equal(stale.isError, true, "a plan whose target changed is refused");
    assert.match(stale.content[0].text, /changed/);
    check("stale plan refused, nothing signalled");

    const seed = await call(client, "plan_kill", { gpu: 1, not_image: OFFICIAL_IMAGE });
    assert.equal(seed.isError, false, JSON.stringify(seed.content));
    assert.deepEqual(seed.structuredContent.targets.map((t) => t.pid), [cfg.unofficial_pid]);
    const killed = await call(client, "execute_kill_plan", { plan_id: seed.structuredContent.plan_id });
    assert.equal(killed.isError, false, JSON.stringify(killed.content));
    check("every container process on GPU 1 not from an official image: planned and killed");
    await close();
}

function rawPost(url, body, headers = {}) {
    return new Promise((resolve, reject) => {
        const target = new URL(url);
        const request = http.request(
            {
                host: target.hostname, port: target.port, path: target.pathname, method: "POST",
                headers: { "Content-Type": "application/json",
                           Accept: "application/json, text/event-stream", ...headers },
            },
            (response) => {
                let text = "";
                response.on("data", (chunk) => (text += chunk));
                response.on("end", () => resolve({ status: response.statusCode, headers: response.headers, text }));
            },
        );
        request.on("error", reject);
        request.end(body);
    });
}

async function httpSecurityAndFraming() {
    const { child, url } = await startGpukillHttp(cfg.gpukill, ["--allow-actions", "--token-file", cfg.token_file]);
    const auth = { Authorization: `Bearer ${cfg.token}` };
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    assert.equal((await rawPost(url, init)).status, 401, "no token: 401");
    assert.equal((await rawPost(url, init, { Authorization: "Bearer wrong-secret-wrong-secret-wrong-secret" })).status, 401);
    assert.equal((await rawPost(url, init, { ...auth, Origin: "http://evil.example" })).status, 403);
    assert.equal((await rawPost(url, init, { ...auth, Host: "evil.example" })).status, 403);
    check("HTTP: token required, foreign Origin and Host refused");
    const opened = await rawPost(url, init, auth);
    assert.equal(opened.status, 200);
    const session = opened.headers["mcp-session-id"];
    assert.match(session, /^[0-9a-f]{32}$/);
    const inSession = { ...auth, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18" };
    const bad = await rawPost(url, "{not json", inSession);
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).error.code, -32700);
    const batch = await rawPost(url, "[" + init + "]", inSession);
    assert.equal(JSON.parse(batch.text).error.code, -32600);
    const unknown = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such" }), inSession);
    assert.equal(JSON.parse(unknown.text).error.code, -32601);
    const wrongType = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: 5 } }), inSession);
    assert.equal(JSON.parse(wrongType.text).error.code, -32602);
    const huge = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping", params: { pad: "x".repeat(5 << 20) } }), inSession);
    assert.equal(huge.status, 413);
    const badVersion = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }), { ...inSession, "MCP-Protocol-Version": "1999-01-01" });
    assert.equal(badVersion.status, 400);
    const noSession = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }), auth);
    assert.equal(noSession.status, 400);
    const sse = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }), { ...inSession, Accept: "text/event-stream" });
    assert.match(sse.headers["content-type"], /text\/event-stream/);
    assert.match(sse.text, /^event: message\ndata: \{.*"id":7/);
    const notified = await rawPost(url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), inSession);
    assert.equal(notified.status, 202);
    check("HTTP: malformed JSON-RPC answered with JSON-RPC errors, never a crash");
    const ended = await new Promise((resolve, reject) => {
        const target = new URL(url);
        http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "DELETE",
                       headers: inSession }, (r) => { r.resume(); r.on("end", () => resolve(r.statusCode)); })
            .on("error", reject).end();
    });
    assert.equal(ended, 204);
    assert.equal((await rawPost(url, JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }), inSession)).status, 404);
    check("HTTP: DELETE ends the session");
    assert.equal(await stopChild(child), 0);
}

// Raw stdio: every stdout line is a JSON-RPC message, every bad input an error.
async function stdioFraming() {
    const child = spawn(cfg.gpukill, ["mcp"], { stdio: ["pipe", "pipe", "ignore"] });
    const lines = [];
    let buffer = "";
    child.stdout.on("data", (chunk) => {
        buffer += chunk;
        let at;
        while ((at = buffer.indexOf("\n")) >= 0) {
            lines.push(buffer.slice(0, at));
            buffer = buffer.slice(at + 1);
        }
    });
    const send = (text) => child.stdin.write(text + "\n");
    send("{not json");
    send('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    send('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    send('{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    send('{"jsonrpc":"2.0","id":4,"method":"no/such"}');
    send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}');
    send('{"jsonrpc":"2.0","id":[6],"method":"ping"}');
    send("x".repeat(5 << 20));
    send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    child.stdin.end();
    const [code] = await once(child, "exit");
    assert.equal(code, 0);
    const messages = lines.map((line) => JSON.parse(line));
    for (const message of messages) assert.equal(message.jsonrpc, "2.0");
    const codes = messages.map((m) => (m.error ? m.error.code : "ok"));
    assert.deepEqual(codes, [-32700, -32600, -32600, "ok", -32601, -32602, -32600, -32600, "ok"]);
    check("stdio: malformed JSON-RPC answered, stdout carries MCP messages only");
}

try {
    await readOnly();
    await actions();
    if (kind === "http") await httpSecurityAndFraming();
    else await stdioFraming();
    console.log(JSON.stringify({ ok: true, transport: kind, checks }));
} catch (error) {
    console.error(`FAILED after ${JSON.stringify(checks)}: ${error.stack ?? error}`);
    process.exit(1);
}
