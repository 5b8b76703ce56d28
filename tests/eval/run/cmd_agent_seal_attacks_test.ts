/**
 * An agent that breaks the tools of its own container picks no bucket: end to end through the CLI,
 * each attack of `tests/workspace/seal_attacks_test.ts`, made by a `cmd:` agent on a Verdict task
 * (in an image whose tools the agent user may replace) and by a Harbor task's "solution", ends as
 * the agent's pass or failure, never an infrastructure or evaluator error, and the trial is not
 * held up by a hanging tool.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import type { TrialRecord } from "../../../src/store/trial_record.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";
import { ATTACKS } from "../../workspace/_seal_attacks.ts";

const WRITABLE_TOOLS = "verdict-test/writable-tools";
// The attacks an agent user can make when the image lets it replace its tools.
const USER_ATTACKS = [
  "delete tar, cp, mkdir, head, bash and sh",
  "plant hanging tar, sh and head wrappers on PATH",
  "replace the tools themselves with hanging ones",
];
// Without hanging tools (which the channel meets once, for 30 s at most) a trial takes seconds.
const BOUND_MS = 90_000;

async function writableToolsImage(): Promise<void> {
  const docker = await requireDocker();
  const built = await docker.run(["build", "--quiet", "--tag", WRITABLE_TOOLS, "-"], {
    stdin: new TextEncoder().encode(
      "FROM verdict/python:3.11\n" +
        "RUN chmod 777 /usr/bin /usr/local/bin && chmod 777 /usr/bin/tar /usr/bin/head\n",
    ),
  });
  assert.equal(built.code, 0, new TextDecoder().decode(built.stdout) + built.stderr);
}

async function verdictTask(dir: string, id: string): Promise<void> {
  await Deno.mkdir(join(dir, "workspace"), { recursive: true });
  await Deno.mkdir(join(dir, "tests"));
  await Deno.writeTextFile(
    join(dir, "task.yaml"),
    `id: ${id}\ncategory: attack\nimage: ${WRITABLE_TOOLS}\nworkdir: /workspace\n` +
      "limits: { max_steps: 5, timeout_s: 120 }\nsuccess: { script: test.sh, timeout_s: 60, expect_tests: 0 }\n",
  );
  await Deno.writeTextFile(join(dir, "instruction.md"), "Write `right` into answer.txt.\n");
  await Deno.writeTextFile(join(dir, "workspace", "answer.txt"), "wrong\n");
  await Deno.writeTextFile(
    join(dir, "tests", "test.sh"),
    '#!/bin/sh\n[ "$(cat answer.txt)" = right ]\n',
    { mode: 0o755 },
  );
}

async function evaluate(args: string[], home: string): Promise<Results[]> {
  const result = await runVerdict([...args, "--concurrency", "2", "--home", home, "--json"]);
  assert.notEqual(result.code, 3, result.stdout + result.stderr);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const parsed = JSON.parse(result.stdout) as Results | { runs: Results[] };
  return "runs" in parsed ? parsed.runs : [parsed];
}

let verdictTaskTrials: Promise<Map<string, TrialRecord>> | undefined;

/** Each user attack's trial, from one sweep of a cmd agent per attack (one CLI process). */
function cmdAgentTrials(): Promise<Map<string, TrialRecord>> {
  verdictTaskTrials ??= (async () => {
    await writableToolsImage();
    await using home = await scratchDir("seal-attack");
    const task = join(home.path, "task");
    await verdictTask(task, "attack");
    const agents = USER_ATTACKS.map((name) =>
      `cmd:echo right > answer.txt && { ${ATTACKS[name]}; } >/dev/null 2>&1`
    );
    const runs = await evaluate(
      ["eval", task, ...agents.flatMap((a) => ["--agent", a])],
      home.path,
    );
    assert.equal(runs.length, USER_ATTACKS.length, "a run for each agent");
    return new Map(USER_ATTACKS.map((name, index) => {
      const run = runs.find((candidate) => candidate.run.agent === agents[index]);
      assert(run, `a run of the agent that does "${name}"`);
      return [name, run.trials[0]];
    }));
  })();
  return verdictTaskTrials;
}

let harborTaskTrials: Promise<Map<string, TrialRecord>> | undefined;

/** Each attack's trial, from one oracle run over a copy of system-tool per attack. */
function harborTrials(): Promise<Map<string, TrialRecord>> {
  harborTaskTrials ??= (async () => {
    await requireDocker();
    await using home = await scratchDir("harbor-attack");
    const names = Object.keys(ATTACKS);
    const tasks = await Promise.all(names.map(async (name, index) => {
      // The folder names the task; the environment, and so the image, is system-tool's.
      const task = join(home.path, "tasks", `system-tool-${index}`);
      await copyTree(join(PROJECT_ROOT, "tests/fixtures/harbor/system-tool"), task);
      const solve = join(task, "solution", "solve.sh");
      await Deno.writeTextFile(
        solve,
        `${await Deno.readTextFile(solve)}\n{ ${ATTACKS[name]}; } || true\n`,
      );
      return task;
    }));
    const [results] = await evaluate(["eval", ...tasks, "--agent", "oracle"], home.path);
    return new Map(names.map((name, index) => {
      const trial = results.trials.find((candidate) => candidate.task === `system-tool-${index}`);
      assert(trial, `a trial of the task whose agent does "${name}"`);
      return [name, trial];
    }));
  })();
  return harborTaskTrials;
}

for (const name of USER_ATTACKS) {
  Deno.test(`a cmd agent on a Verdict task that does "${name}" passes on its work`, async () => {
    const trial = (await cmdAgentTrials()).get(name)!;
    assert.deepEqual([trial.verdict, trial.bucket], ["pass", "pass"], trial.reason);
    assert.ok(trial.duration_ms < BOUND_MS, `the trial took ${trial.duration_ms} ms`);
  });
}

for (const name of Object.keys(ATTACKS)) {
  Deno.test(`a Harbor task whose agent does "${name}" is graded as the agent's`, async () => {
    const trial = (await harborTrials()).get(name)!;
    // The agent's: a pass, its failure, or tampering (deleting bash, say, is a grader hijack).
    assert.ok(
      !["infrastructure_error", "evaluator_error"].includes(trial.bucket),
      `${trial.bucket}: ${trial.reason}`,
    );
    assert.ok(trial.duration_ms < BOUND_MS, `the trial took ${trial.duration_ms} ms`);
  });
}
