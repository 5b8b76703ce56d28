/**
 * `verdict runs` lists the state folder's runs newest first with what each ran and how it went,
 * filtered and limited; `latest` names the newest run wherever a run id is asked for; a run id that
 * is no run is answered with the newest runs, labelled.
 */
import assert from "node:assert/strict";
import { LogicalClock } from "../../src/core/clock.ts";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import type { RunListing } from "../../src/report/run_listing.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

async function threeRuns(home: string): Promise<string[]> {
  const ids: string[] = [];
  for (
    const [index, [agent, seed]] of ([["oracle", 0], ["nop", 0], ["nop", 1]] as const).entries()
  ) {
    const sandbox = new MemorySandbox({
      exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
    });
    const clock = new LogicalClock({ start: 1_800_000_000_000 + index * 60_000, tick: 1 });
    const { run } = await runEval(
      { paths: ["tasks/fix-slugify"], agent, seed, home },
      { sandbox, clock },
    );
    ids.push(run.id);
  }
  return ids;
}

Deno.test("runs lists newest first, filters by agent and status, limits, and speaks JSON", async () => {
  await using dir = await scratchDir("runs");
  const [oracle, nop, nopAgain] = await threeRuns(dir.path);
  const runs = (...args: string[]) => runVerdictInProcess(["runs", "--home", dir.path, ...args]);

  const all = await runs();
  assert.equal(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^run +created \(UTC\) +status +agent +model +tasks +passed +rate$/);
  assert.deepEqual(lines.slice(1).map((line) => line.split(/ +/)[0]), [nopAgain, nop, oracle]);
  assert.match(lines[1], /finished +nop +- +1 +0\/1 +0\.0%$/);

  const listed = JSON.parse((await runs("--agent", "nop", "--json")).stdout) as RunListing[];
  assert.deepEqual(listed.map((run) => run.id), [nopAgain, nop]);
  assert.equal(listed[0].pass_rate, 0);
  const limited = await runs("--limit", "1");
  assert.match(limited.stdout, /\(2 older: --limit 0 lists all\)\n$/);
  assert.equal((await runs("--status", "interrupted")).stdout, "no runs match\n");
  const bad = await runs("--status", "done");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--status done is not a run status/);
});

Deno.test("latest names the newest run; an unknown run id lists the newest runs with their agents", async () => {
  await using dir = await scratchDir("runs-latest");
  const [, , newest] = await threeRuns(dir.path);
  const stats = await runVerdictInProcess(["stats", "latest", "--home", dir.path]);
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, new RegExp(`^run ${newest} \\(nop\\)`));
  const verify = await runVerdictInProcess(["verify", "latest", "--home", dir.path]);
  assert.match(verify.stdout, new RegExp(`^run ${newest} intact`));
  const unknown = await runVerdictInProcess(["stats", "zzzz", "--home", dir.path]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    new RegExp(`the newest: ${newest} \\(nop\\), .* \\(nop\\), .* \\(oracle\\)`),
  );
});
