import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { openStore } from "../../../src/store/store.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";

/** What a trial's outcome is, less what differs from one execution to the next (times, ids). */
function outcomeOf(results: Results) {
  return {
    status: results.run.status,
    agent: results.run.agent,
    agent_needs: results.run.agent_needs,
    summary: results.summary,
    trials: results.trials.map((trial) => ({
      task: trial.task,
      verdict: trial.verdict,
      bucket: trial.bucket,
      reason: trial.reason,
      changed_paths: trial.changed_paths,
      end_state_root: trial.end_state_root,
    })),
  };
}

Deno.test("an oracle run resumed from nothing recorded ends as the evaluated run did: the oracle's verdict, the same reports and status", async () => {
  await requireDocker();
  await using evaluated = await scratchDir("lifecycle");
  await using resumed = await scratchDir("lifecycle");
  const evaluation = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/slow",
    "--home",
    evaluated.path,
    "--json",
  ]);
  assert.equal(evaluation.code, 0, evaluation.stdout + evaluation.stderr);
  const expected = JSON.parse(evaluation.stdout) as Results;
  assert.equal(expected.trials[0].verdict, "pass", "the oracle solves the task (nop would not)");

  // The same run, recorded as a process that was killed before its trial began would leave it.
  const run = expected.run.id;
  const source = openStore(join(evaluated.path, "verdict.db"));
  const config = source.runs.get(run)!.config;
  const session = source.runs.sessions(run)[0];
  source.close();
  const store = openStore(join(resumed.path, "verdict.db"));
  store.runs.create({ id: run, config, createdAt: 0 });
  store.runs.createSession({ id: session.id, run, task: session.task, repeat: session.repeat });
  store.runs.setStatus(run, "interrupted");
  store.close();
  await Deno.mkdir(join(resumed.path, "runs", run), { recursive: true });

  const resumption = await runVerdict(["resume", run, "--home", resumed.path, "--json"]);
  assert.equal(resumption.code, 0, resumption.stdout + resumption.stderr);
  const actual = JSON.parse(resumption.stdout) as Results;
  assert.deepEqual(outcomeOf(actual), outcomeOf(expected));
  for (const home of [evaluated.path, resumed.path]) {
    const written = JSON.parse(
      await Deno.readTextFile(join(home, "runs", run, "results.json")),
    ) as Results;
    assert.deepEqual(outcomeOf(written), outcomeOf(expected));
    assert.match(await Deno.readTextFile(join(home, "runs", run, "report.md")), /pass/);
  }
});
