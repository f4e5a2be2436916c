// The seed's request on a Kubernetes node, through the official TypeScript SDK client:
// "kill every container process on GPU 1 that is not from an official image", where
// containerd runs the containers and no Docker is there to ask. tests/integration/
// kubernetes_seed_test.cpp lays out the node (real gpusim workloads in cgroups named as
// containerd names them, bundles as containerd writes them) and checks the host after.
//
//   MCP_E2E  JSON: {gpukill, official_pids: [...], unofficial_pids: [...], other_gpu_pid,
//            plain_pid, pods: {PID: {pod, namespace, container, image}}}
// The simulator's environment (GPUKILL_*, GPUKILL_RUNDIR the node's run directory) is
// inherited and passed to gpukill. Prints one JSON line {"ok": true, ...}, exits 0 when
// every check passed.
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { withTimeout } from "./e2e_support.mjs";

const cfg = JSON.parse(process.env.MCP_E2E);
const OFFICIAL = "^(nvcr\\.io/|docker\\.io/library/)";
const checks = [];
const check = (name) => checks.push(name);
const sorted = (pids) => [...pids].sort((a, b) => a - b);

async function call(client, name, args = {}) {
    return withTimeout(client.callTool({ name, arguments: args }), 60000, `tools/call ${name}`);
}

async function main() {
    const client = new Client({ name: "gpukill-kubernetes-e2e", version: "1.0.0" });
    const transport = new StdioClientTransport({
        command: cfg.gpukill,
        args: ["mcp", "--allow-actions"],
        env: process.env,
        stderr: "ignore",
    });
    await withTimeout(client.connect(transport), 30000, "initialize");

    // The selectors are in the tool's schema: the request table gives every door the same.
    const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const field of ["namespace", "pod", "not_image"]) {
        assert.ok(tools.plan_kill.inputSchema.properties[field], `plan_kill takes ${field}`);
        assert.ok(tools.list_processes.inputSchema.properties[field], `list_processes takes ${field}`);
    }
    check("namespace, pod and not_image in the tools' schemas");

    // What the assistant sees first: each container process with its image and pod.
    const listed = await call(client, "list_processes", { gpu: 1 });
    assert.equal(listed.isError, false, JSON.stringify(listed.content));
    for (const [pid, want] of Object.entries(cfg.pods)) {
        const found = listed.structuredContent.processes.find((p) => p.pid === Number(pid));
        if (!found) continue;  // on GPU 0
        assert.equal(found.container.image, want.image, `image of ${pid}`);
        assert.equal(found.container.pod_name, want.pod, `pod of ${pid}`);
        assert.equal(found.container.pod_namespace, want.namespace, `namespace of ${pid}`);
        assert.equal(found.container.container_name, want.container, `container of ${pid}`);
    }
    check("images, pods and namespaces listed from containerd's bundles");

    const byNamespace = await call(client, "list_processes", { namespace: "batch" });
    const inBatch = Object.entries(cfg.pods)
        .filter(([, want]) => want.namespace === "batch")
        .map(([pid]) => Number(pid));
    assert.deepEqual(sorted(byNamespace.structuredContent.processes.map((p) => p.pid)), sorted(inBatch));
    const typo = await call(client, "list_processes", { namespace: "Batch" });
    assert.equal(typo.isError, true, "a namespace Kubernetes would refuse is an error");
    check("namespace selects exactly; a name Kubernetes refuses is an error");

    // The seed: plan, check the plan names only the unofficial ones, execute.
    const plan = await call(client, "plan_kill", { gpu: 1, not_image: OFFICIAL });
    assert.equal(plan.isError, false, JSON.stringify(plan.content));
    assert.deepEqual(sorted(plan.structuredContent.targets.map((t) => t.pid)), sorted(cfg.unofficial_pids));
    for (const target of plan.structuredContent.targets) {
        assert.equal(target.reason, "selector_match");
        assert.match(target.reason_detail, /--gpu 1 --not-image/);
    }
    check("the plan names only GPU 1's container processes not from an official image");

    const done = await call(client, "execute_kill_plan", { plan_id: plan.structuredContent.plan_id });
    assert.equal(done.isError, false, JSON.stringify(done.content));
    const outcome = done.structuredContent;
    assert.equal(outcome.exit_code, 0, JSON.stringify(outcome));
    for (const target of outcome.targets) {
        assert.ok(["exited", "terminated", "killed"].includes(target.outcome), JSON.stringify(target));
    }
    const gpu1 = outcome.gpus.find((g) => g.index === 1);
    assert.ok(gpu1 && gpu1.released, JSON.stringify(outcome.gpus));
    assert.ok(gpu1.memory_reclaimed_bytes >= cfg.unofficial_bytes, JSON.stringify(gpu1));
    check("executed: the unofficial ones ended and their memory came back");

    // Afterwards GPU 1 holds the official ones and the process in no container.
    const after = await call(client, "list_processes", { gpu: 1 });
    // Observers (gpukill's own server holds NVML's device files) are not workloads.
    const workloads = after.structuredContent.processes.filter((p) => p.role === "workload");
    assert.deepEqual(sorted(workloads.map((p) => p.pid)), sorted([...cfg.official_pids, cfg.plain_pid]));
    check("the official ones live");
    await client.close();
    console.log(JSON.stringify({ ok: true, checks }));
}

main().catch((error) => {
    console.log(JSON.stringify({ ok: false, checks, error: String(error.stack || error) }));
    process.exit(1);
});
