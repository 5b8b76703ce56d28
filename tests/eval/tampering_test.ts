import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { openStore } from "../../src/store/store.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

Deno.test("tampering outside the workdir, after the agent stops, or with the test runner fails", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("tamper");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/tampering",
    "--home",
    home.path,
    "--json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  const byTask = new Map(results.trials.map((trial) => [trial.task, trial]));

  // Writes into the standard library are refused (the agent is not root), and a patch in the
  // agent's user site-packages works in its own container but never reaches grading.
  const stdlib = byTask.get("tamper-stdlib")!;
  assert.deepEqual([stdlib.verdict, stdlib.bucket], ["fail", "agent_failure"]);
  assert.match(stdlib.reason, /tests failed/);
  const store = openStore(join(home.path, "verdict.db"));
  const oracle = store.events.read(stdlib.session).find((event) => event.kind === "agent.oracle")!;
  store.close();
  assert.match(String(oracle.payload.stdout), /stdlib write refused/);
  assert.match(String(oracle.payload.stdout), /in the agent container calc\.add\(2, 3\) = 5/);

  // A process left behind to write the answer later is frozen before the seal.
  const background = byTask.get("tamper-background")!;
  assert.equal(background.verdict, "fail");
  assert.equal(background.changed_paths, 0, "nothing written after the agent stopped");

  // A package that subverts pytest makes the canary pass: tampering.
  const pytest = byTask.get("tamper-pytest")!;
  assert.equal(pytest.verdict, "fail");
  assert.match(pytest.reason, /^tampering: the canary tests\/canary\.sh passed/);
  assert.equal(pytest.success?.exit_code, 0, "the subverted tests themselves 'passed'");

  assert.deepEqual(await containersLabelled(docker, `verdict.run=${results.run.id}`), []);
});
