// Drives an agent in RPC mode with pi's own RpcClient, unchanged, through every client method and
// event helper, and prints what it saw as JSON: each scenario's events and each call's answer.
// Usage: node pi_rpc_client.mjs <pi package folder> <agent command | "pi"> <workspace> [provider model]
// With "pi" the agent is pi itself (its dist/cli.js); else a shim starts the command given.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, agent, workspace, provider = "openai", model = "scripted"] = process.argv.slice(2);
const root = join(packageDir, "node_modules/@mariozechner/pi-coding-agent");
const { RpcClient } = await import(pathToFileURL(join(root, "dist/modes/rpc/rpc-client.js")).href);

let cliPath = join(root, "dist/cli.js");
let args = ["--provider", provider, "--model", model];
if (agent !== "pi") {
  // RpcClient runs `node <cliPath> --mode rpc`: the cli here starts the agent with the same arguments.
  cliPath = join(workspace, "..", "agent-shim.mjs");
  writeFileSync(
    cliPath,
    `import { spawn } from "node:child_process";
const child = spawn(${JSON.stringify(agent)}, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
`,
  );
  args = ["--yolo"];
}

const client = new RpcClient({ cliPath, cwd: workspace, args });
const seen = {};
const calls = {};
const all = [];
client.onEvent((event) => all.push(event));

const timed = async (name, work) => {
  const started = Date.now();
  seen[name] = { events: await work(), ms: Date.now() - started };
};
// Each client method once: its answer, or the error it threw (a failed response rejects).
const call = async (name, work) => {
  try {
    calls[name] = { ok: true, data: (await work()) ?? null };
  } catch (error) {
    calls[name] = { ok: false, error: String(error?.message ?? error) };
  }
  return calls[name].data;
};
const until = (test) =>
  new Promise((resolve) => {
    const stop = client.onEvent((event) => {
      if (test(event)) {
        stop();
        resolve(event);
      }
    });
  });
// The events of one piece of work: from now until agent_end.
const during = async (work) => {
  const events = [];
  const stop = client.onEvent((event) => events.at(-1)?.type !== "agent_end" && events.push(event));
  const idle = client.waitForIdle(30000);
  await work();
  await idle;
  stop();
  return events;
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
  await timed("collect", async () => {
    const collected = client.collectEvents(20000);
    await client.prompt("collect this");
    return await collected;
  });
  await timed("abort", () =>
    during(async () => {
      const streamed = until((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta");
      await client.prompt("stall please");
      await streamed;
      await client.abort();
    }),
  );
  await timed("abort_command", () =>
    during(async () => {
      const running = until((e) => e.type === "tool_execution_start");
      await client.prompt("run a long command");
      await running;
      await client.abort();
    }),
  );
  await timed("steer_and_follow_up", () =>
    during(async () => {
      const running = until((e) => e.type === "tool_execution_start");
      await client.prompt("run a short command");
      await running;
      await client.steer("also mention the time");
      await client.followUp("then say bye");
    }),
  );
  await call("getState", () => client.getState());
  await call("getAvailableModels", () => client.getAvailableModels());
  await call("setModel", () => client.setModel(provider, model));
  await call("cycleModel", () => client.cycleModel());
  await call("setThinkingLevel", () => client.setThinkingLevel("high"));
  await call("cycleThinkingLevel", () => client.cycleThinkingLevel());
  await call("setThinkingLevelOff", () => client.setThinkingLevel("off"));
  await call("setSteeringMode", () => client.setSteeringMode("one-at-a-time"));
  await call("setFollowUpMode", () => client.setFollowUpMode("one-at-a-time"));
  await call("setAutoCompaction", () => client.setAutoCompaction(true));
  await call("setAutoRetry", () => client.setAutoRetry(true));
  await call("abortRetry", () => client.abortRetry());
  await call("bash", () => client.bash("echo from-bash"));
  await call("abortBash", async () => {
    const long = client.bash("sleep 30");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.abortBash();
    calls.bashAborted = { ok: true, data: await long };
  });
  await timed("compact", async () => {
    const events = [];
    const stop = client.onEvent((event) => event.type.startsWith("compaction_") && events.push(event));
    await call("compact", () => client.compact("keep the greetings"));
    stop();
    return events;
  });
  await call("getSessionStats", () => client.getSessionStats());
  await call("getLastAssistantText", () => client.getLastAssistantText());
  await call("setSessionName", () => client.setSessionName("shapes"));
  await call("getCommands", () => client.getCommands());
  await call("exportHtml", () => client.exportHtml(join(workspace, "session.html")));
  const state = await call("getStateBeforeFork", () => client.getState());
  const forkable = await call("getForkMessages", () => client.getForkMessages());
  await call("fork", () => client.fork(forkable[0].entryId));
  await call("getStateAfterFork", () => client.getState());
  await call("clone", () => client.clone());
  await call("switchSession", () => client.switchSession(state.sessionFile ?? state.sessionId));
  await call("getStateAfterSwitch", () => client.getState());
  await call("newSession", () => client.newSession());
  seen.messages = await call("getMessages", () => client.getMessages());
  calls.getStderr = { ok: true, data: typeof client.getStderr() };
} finally {
  await client.stop();
}
process.stdout.write(JSON.stringify({ ...seen, calls, all }));
