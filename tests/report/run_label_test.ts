/**
 * Runs of a sweep are told apart by what they ran: `stats` names each run's agent and model beside
 * its id (in the headline, and in a second header row when runs are side by side), and so does
 * `compare`.
 */
import assert from "node:assert/strict";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

Deno.test("stats and compare label runs by agent and model", async () => {
  await using dir = await scratchDir("run-label");
  const ids: string[] = [];
  for (const agent of ["oracle", "nop"]) {
    const sandbox = new MemorySandbox({
      exec: ({ script }) => ({
        exitCode: script.includes("tests/test.sh") && agent === "nop" ? 1 : 0,
      }),
    });
    const { run } = await runEval(
      { paths: ["tasks/fix-slugify"], agent, home: dir.path },
      { sandbox },
    );
    ids.push(run.id);
  }
  const [oracle, nop] = ids;
  const one = await runVerdictInProcess(["stats", oracle, "--home", dir.path]);
  assert.match(one.stdout, new RegExp(`^run ${oracle} \\(oracle\\): \\d of 1 passed`));
  const both = await runVerdictInProcess(["stats", oracle, nop, "--home", dir.path]);
  const [header, labels] = both.stdout.split("\n\n").at(-1)!.split("\n");
  assert.match(header, new RegExp(`^task +${oracle} +${nop}`));
  assert.match(labels, /^ +oracle +nop/);
  const compared = await runVerdictInProcess(["compare", oracle, nop, "--home", dir.path]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, new RegExp(`^${oracle} \\(oracle\\) → ${nop} \\(nop\\): 1 paired`));
});
