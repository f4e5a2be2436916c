// What both end-to-end scripts need around the SDK clients: a bounded wait, and
// `gpukill mcp --http` started on a free loopback port and stopped again.
import { spawn } from "node:child_process";
import { once } from "node:events";

export function withTimeout(promise, ms, what) {
    let timer;
    return Promise.race([
        promise,
        new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
        }),
    ]).finally(() => clearTimeout(timer));
}

// gpukill mcp --http on a free loopback port; resolves with the URL from its ready line.
export async function startHttp(gpukill, args) {
    const child = spawn(gpukill, ["mcp", "--http", "--listen", "127.0.0.1:0", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
    });
    let seen = "";
    const url = await withTimeout(
        new Promise((resolve, reject) => {
            child.stderr.on("data", (chunk) => {
                seen += chunk;
                const match = /listening on (http:\/\/\S+)/.exec(seen);
                if (match) resolve(match[1]);
            });
            child.on("exit", (code) => reject(new Error(`gpukill mcp exited ${code}: ${seen}`)));
        }),
        30000,
        "the HTTP ready line",
    );
    return { child, url };
}

export async function stopChild(child) {
    if (child.exitCode !== null) return child.exitCode;
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    return code;
}
