import assert from "node:assert/strict";
import { join } from "node:path";
import { writeRun } from "../_synthetic_runs.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const RUN = "ffff6666ffff";

Deno.test("verify compares results.json and report.md with the record and reports them missing, and report rebuilds them", async () => {
  await using home = await scratchDir("derived");
  await writeRun(home.path, RUN, [["add", 0, "pass"], ["fix", 0, "fail"]]);
  const verify = () => runVerdictInProcess(["verify", RUN, "--home", home.path]);
  const report = () => runVerdictInProcess(["report", RUN, "--home", home.path]);
  // A run that ended writes its files: without them it is not whole (a process killed between
  // the record's end and its files leaves that).
  const missing = await verify();
  assert.equal(missing.code, 1, missing.stdout);
  assert.match(
    missing.stdout,
    /results\.json is not what the record says: it is missing; 'verdict report/,
  );
  assert.match(missing.stdout, /report\.md is not what the record says: it is missing/);
  assert.equal((await report()).code, 0);
  assert.equal((await verify()).code, 0);

  const resultsFile = join(home.path, "runs", RUN, "results.json");
  const results = JSON.parse(await Deno.readTextFile(resultsFile));
  results.trials[1].verdict = "pass";
  await Deno.writeTextFile(resultsFile, JSON.stringify(results));
  const edited = await verify();
  assert.equal(edited.code, 1, edited.stdout);
  assert.ok(
    edited.stdout.includes(
      `${resultsFile} is not what the record says: it does not match the record at ` +
        `trials[1].verdict: the record says "fail"`,
    ),
    edited.stdout,
  );
  assert.match(edited.stdout, new RegExp(`'verdict report ${RUN}' rebuilds it from the record`));

  assert.equal((await report()).code, 0);
  const reportFile = join(home.path, "runs", RUN, "report.md");
  const markdown = await Deno.readTextFile(reportFile);
  await Deno.writeTextFile(reportFile, markdown.replace("| fix", "| fixed"));
  const json = JSON.parse(
    (await runVerdictInProcess(["verify", RUN, "--json", "--home", home.path])).stdout,
  );
  assert.equal(json.intact, false);
  assert.deepEqual(json.derived.map((problem: { file: string }) => problem.file), [reportFile]);
  assert.equal((await report()).code, 0);
  assert.equal((await verify()).code, 0, "rebuilt from the record");
});
