// Drives `circle --mode rpc` with pi's own RpcClient, unchanged, and prints what it saw as JSON.
// Usage: node pi_rpc_client.mjs <pi package folder> <circle command> <workspace>
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, circle, workspace] = process.argv.slice(2);
const entry = join(packageDir, "node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js");
const { RpcClient } = await import(pathToFileURL(entry).href);

// RpcClient runs `node <cliPath> --mode rpc`: the cli here starts circle with the same arguments.
const shim = join(workspace, "..", "circle-shim.mjs");
writeFileSync(
  shim,
  `import { spawn } from "node:child_process";
const child = spawn(${JSON.stringify(circle)}, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
`,
);

const client = new RpcClient({ cliPath: shim, cwd: workspace, args: ["--yolo"] });
const seen = {};
const timed = async (name, work) => {
  const started = Date.now();
  seen[name] = { events: await work(), ms: Date.now() - started };
};
await client.start();
try {
  await timed("hello", () => client.promptAndWait("say hello", undefined, 20000));
  await timed("tool", () => client.promptAndWait("look around", undefined, 20000));
  await timed("idle", async () => {
    const events = [];
    const stop = client.onEvent((event) => events.at(-1)?.type !== "agent_end" && events.push(event));
    await client.prompt("once more");
    await client.waitForIdle(20000);
    stop();
    return events;
  });
  await timed("abort", async () => {
    const events = [];
    let streaming;
    const streamed = new Promise((resolve) => (streaming = resolve));
    const stop = client.onEvent((event) => {
      if (events.at(-1)?.type !== "agent_end") events.push(event);
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") streaming();
    });
    const idle = client.waitForIdle(20000);
    await client.prompt("stall please");
    await streamed;
    await client.abort();
    await idle;
    stop();
    return events;
  });
  seen.messages = await client.getMessages();
} finally {
  await client.stop();
}
process.stdout.write(JSON.stringify(seen));
