/**
 * The generic installed agent (`cmd:COMMAND`) without Docker: the exact scripts its container
 * runs (root's, which readies it, and the agent's), what it records, and how its exit is read. `tests/eval/trial/cmd_agent_trial_test.ts` runs it for real.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentFilesTar, cmdAgent, MAX_RECORDED_OUTPUT_BYTES } from "../../src/agent/cmd_agent.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { type ExecRequest, MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import type { UnpackedExecResult } from "../../src/engine/sandbox.ts";
import { parseTar } from "../../src/engine/tar.ts";
import { type CatalogueEvent, EVENT } from "../../src/store/event_catalogue.ts";
import { loadTask } from "../../src/task/load_task.ts";
import { PROJECT_ROOT } from "../_verdict.ts";
import { ALL_REPLAY_MASKS } from "../../src/gateway/request_fingerprint.ts";

const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));

async function run(command: string, answer: Partial<UnpackedExecResult>) {
  const requests: ExecRequest[] = [];
  const sandbox = new MemorySandbox({
    exec: (request) => {
      requests.push(request);
      return request.user === "0:0" ? {} : answer;
    },
  });
  const container = await sandbox.start({
    image: task.manifest.image,
    workdir: task.manifest.workdir,
    network: "none",
    labels: {},
  });
  const events: CatalogueEvent[] = [];
  const outcome = await cmdAgent(command, null).run({
    task,
    session: "s1",
    container,
    record: (recorded) => events.push(...recorded),
    storeBlob: () => "",
    rng: new SplitMix64(1),
    timeoutMs: 5000,
    resumed: false,
    signal: new AbortController().signal,
  });
  await container.remove();
  return { outcome, events, requests };
}

Deno.test("cmd:COMMAND runs its command with the instruction in a file, and records what it printed", async () => {
  const { outcome, events, requests } = await run("python3 /verdict/agent/it's.py", {
    stdout: "done\n",
  });
  const [ready, agent] = requests;
  assert.equal(ready.user, "0:0");
  assert.match(ready.script, /^set -e\nmkdir -p '\/tmp\/verdict'\nchmod 1777 '\/tmp\/verdict'\n/);
  assert(ready.script.includes("cat > '/tmp/verdict/instruction.md'"), ready.script);
  assert.equal(new TextDecoder().decode(ready.options.stdin), task.instruction);
  assert.equal(agent.script, "set -e\nexec sh -c 'python3 /verdict/agent/it'\\''s.py' </dev/null");
  assert.deepEqual(agent.options.env, {
    VERDICT_INSTRUCTION_FILE: "/tmp/verdict/instruction.md",
  });
  assert.equal(agent.options.maxOutputBytes, MAX_RECORDED_OUTPUT_BYTES);
  assert.equal(agent.options.timeoutMs, 5000);
  assert.deepEqual(events, [{
    kind: EVENT.agentCmd,
    payload: {
      command: "python3 /verdict/agent/it's.py",
      exit_code: 0,
      timed_out: false,
      stdout: "done\n",
      stderr: "",
      clock_start: null,
      replay_masks: [...ALL_REPLAY_MASKS],
      instruction: task.instruction,
    },
  }]);
  assert.equal(outcome.stopReason, "completed");
  assert.equal(outcome.counters.finished, true);
});

Deno.test("cmd:COMMAND that exits non-zero is an error naming its exit code; past the deadline, a timeout", async () => {
  const failed = await run("false", { exitCode: 3 });
  assert.equal(failed.outcome.stopReason, "error");
  assert.equal(failed.outcome.detail, "the agent's command exited 3");
  const late = await run("sleep 99", { exitCode: 137, timedOut: true });
  assert.equal(late.outcome.stopReason, "timeout");
  assert.equal(late.outcome.detail, undefined);
});

Deno.test("--agent-files are packed root's and readable by all, whatever their modes on the host", async () => {
  const folder = await Deno.makeTempDir(); // 0700
  try {
    await Deno.mkdir(join(folder, "lib"), { mode: 0o700 });
    await Deno.writeTextFile(join(folder, "agent.py"), "print(1)\n", { mode: 0o600 });
    await Deno.writeTextFile(join(folder, "run.sh"), "exit 0\n", { mode: 0o700 });
    await Deno.symlink("../agent.py", join(folder, "lib", "link.py"));
    await Deno.chmod(folder, 0o700);
    const entries = parseTar(await agentFilesTar(folder));
    assert.deepEqual(
      entries.map((entry) => [entry.path, entry.type === "symlink" ? entry.target : entry.mode]),
      [
        ["verdict/agent", 0o755],
        ["verdict/agent/agent.py", 0o644],
        ["verdict/agent/lib", 0o755],
        ["verdict/agent/lib/link.py", "../agent.py"],
        ["verdict/agent/run.sh", 0o755],
      ],
    );
    assert.deepEqual(cmdAgent("true", folder).mounts, [], "copied in, never bind-mounted");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
