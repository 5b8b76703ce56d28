import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { UsageError } from "../../../src/core/errors.ts";
import { loadReplaySource } from "../../../src/eval/setup/replay_model.ts";
import { formatModelSpec, parseModelSpec } from "../../../src/model/model_spec.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { writeRun } from "../../_synthetic_runs.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const TASK = "tasks/shell-count-errors";

interface Trial {
  task: string;
  repeat: number;
  session: string;
  verdict: string;
  bucket: string;
  reason: string;
  stop_reason: string | null;
  steps: number;
  end_state_root: string | null;
}

interface Results {
  run: { id: string; model: string; settings: Record<string, unknown> };
  trials: Trial[];
}

async function evalJson(home: string, args: string[]) {
  const result = await runVerdict(["eval", ...args, "--home", home, "--json"]);
  return { ...result, results: result.stdout ? JSON.parse(result.stdout) as Results : undefined };
}

// One recorded run of a busybox task is the source of every replay below.
Deno.test("eval --model replay:RUN", async (t) => {
  await requireDocker();
  await using home = await scratchDir("replay-model");
  const refused = async (args: string[], message: RegExp) => {
    const result = await runVerdict(["eval", ...args, "--home", home.path]);
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stderr, /internal error|at .*\.ts:\d+/);
  };
  // No state database yet.
  await refused([TASK, "--model", "replay:abc123"], /no state database at .*verdict\.db/);

  const source = await evalJson(home.path, [TASK]);
  assert.equal(source.code, 0, source.stderr);
  const recorded = source.results!;
  const run = recorded.run.id;

  await t.step("reproduces the recorded run: same verdict, same end state", async () => {
    // A prefix of the run id works, and the run records the full id.
    const replayed = await evalJson(home.path, [TASK, "--model", `replay:${run.slice(0, 8)}`]);
    assert.equal(replayed.code, 0, replayed.stderr);
    const results = replayed.results!;
    assert.equal(results.run.model, `replay:${run}`);
    assert.notEqual(results.run.id, run);
    assert.equal(results.trials.length, 1);
    const [before, after] = [recorded.trials[0], results.trials[0]];
    assert.equal(before.verdict, "pass");
    assert.equal(after.verdict, before.verdict);
    assert.equal(after.bucket, "pass");
    assert.equal(after.steps, before.steps);
    assert.equal(after.end_state_root, before.end_state_root);

    // The replayed run replays in turn (its model is found again from the record).
    const again = await runVerdictInProcess(["replay", results.run.id, "--home", home.path]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /identical/);
    // Resume rebuilds the same settings from the record (it refuses a run whose settings differ).
    const resumed = await runVerdict(["resume", results.run.id, "--home", home.path]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);

    // One session serves its task at every repeat.
    const session = await evalJson(home.path, [
      TASK,
      "--model",
      `replay:${before.session}`,
      "--repeat",
      "2",
    ]);
    assert.equal(session.code, 0, session.stderr);
    assert.deepEqual(
      session.results!.trials.map((trial) => [trial.repeat, trial.verdict, trial.end_state_root]),
      [[0, "pass", before.end_state_root], [1, "pass", before.end_state_root]],
    );
  });

  await t.step(
    "on a changed task ends as an infrastructure error naming the divergence",
    async () => {
      // The same task id, with one word of its instruction changed.
      await using copy = await scratchDir("replay-model-task");
      const changed = join(copy.path, "shell-count-errors");
      await copyTree(join(PROJECT_ROOT, TASK), changed);
      const instruction = join(changed, "instruction.md");
      const text = await Deno.readTextFile(instruction);
      await Deno.writeTextFile(instruction, text.replace(/\b(\w{4,})\b/, "$1X"));

      const replayed = await evalJson(home.path, [
        relative(PROJECT_ROOT, changed),
        "--model",
        `replay:${run}`,
      ]);
      assert.equal(replayed.code, 3, replayed.stderr);
      const [trial] = replayed.results!.trials;
      assert.equal(trial.verdict, "fail");
      assert.equal(trial.bucket, "infrastructure_error");
      assert.match(
        trial.reason,
        new RegExp(
          `^replay:${run} diverged at step 1 from session ${
            source.results!.trials[0].session
          } \\(shell-count-errors#0\\): the request of step 1 differs from the recorded one ` +
            `at request\\.messages\\[0\\]\\.content: expected "# Error counts [^"]*"… \\(character 8\\), ` +
            `actual "# ErrorX counts [^"]*"… \\(character 8\\)$`,
        ),
      );
    },
  );

  await t.step("refuses a source it cannot use before the run starts (exit 2)", async () => {
    const runs = async () => (await Array.fromAsync(Deno.readDir(join(home.path, "runs")))).length;
    const before = await runs();

    await refused(
      [TASK, "--model", "replay:feedfacecafe"],
      /--model replay:feedfacecafe: no run or session 'feedfacecafe' in .*verdict\.db; .*'verdict eval' printed/,
    );
    await refused(
      ["tasks/shell-fix-backup", "--model", `replay:${run}`],
      new RegExp(
        `run ${run} has no session for shell-fix-backup#0 \\(it recorded shell-count-errors, 1 repeat\\(s\\) each\\); select recorded tasks with --task`,
      ),
    );
    await refused(
      [TASK, "--model", `replay:${run}`, "--repeat", "2"],
      /has no session for shell-count-errors#1 .*at most --repeat 1/,
    );
    await refused(
      [TASK, "tasks/shell-fix-backup", "--model", `replay:${source.results!.trials[0].session}`],
      /recorded task shell-count-errors only, so it cannot answer shell-fix-backup; add --task shell-count-errors/,
    );
    const oracle = await evalJson(home.path, [TASK, "--agent", "oracle"]);
    assert.equal(oracle.code, 0, oracle.stderr);
    await refused(
      [TASK, "--model", `replay:${oracle.results!.run.id}`],
      /used the oracle agent, which recorded no model responses/,
    );
    assert.equal(await runs(), before + 1, "only the oracle run made a run folder");
  });
});

Deno.test("replay: specs take a run or session id (or prefix), and nothing else", () => {
  assert.deepEqual(parseModelSpec("replay:ab12cd-2"), { kind: "replay", source: "ab12cd-2" });
  assert.equal(formatModelSpec(parseModelSpec("replay:ab12")), "replay:ab12");
  for (const bad of ["replay", "replay:", "replay:../runs", "replay:--help"]) {
    assert.throws(
      () => parseModelSpec(bad),
      (error) =>
        error instanceof UsageError && /id \(or a prefix\) of a recorded run/.test(error.message),
      bad,
    );
  }
});

Deno.test("--model replay: of an installed agent's run is refused, naming verdict replay", async () => {
  await using home = await scratchDir("replay-installed");
  await writeRun(home.path, "cc0123456789", [["fix-slugify", 0, "pass"]], {
    agent: "claude-code@2.1.300",
    agent_needs: { model: true, solutions: false, gateway: true },
  });
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  assert.throws(
    () => loadReplaySource(home.path, "cc0123456789", [task], 1),
    (error: Error) =>
      error instanceof UsageError &&
      /run cc0123456789 used the installed agent claude-code@2\.1\.300, whose model calls went through its gateway; .*use 'verdict replay cc0123456789'/
        .test(error.message),
  );
});
