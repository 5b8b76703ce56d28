/**
 * `verdict clean --run` / `--keep` remove old runs of this state folder: their records, their run
 * folders and the stored blobs no other run refers to; a run in progress is never touched, blobs
 * wait while any run is in progress, and a clean killed midway is finished by the next one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import { tryLockRun } from "../../src/eval/run/run_lock.ts";
import { openStore } from "../../src/store/store.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

/**
 * Two runs of one task in `home`, both the loop's: with the scripted model, then with a faulty one.
 * Each has model requests of its own; the staged workspace, the system prompt and the tools are
 * blobs both refer to.
 */
async function twoRuns(home: string): Promise<[string, string]> {
  const ids: string[] = [];
  for (const model of ["scripted", "scripted:faults=1"]) {
    const sandbox = new MemorySandbox({
      exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
    });
    const request = { paths: ["tasks/fix-slugify"], agent: "loop" as const, model, home };
    const { run } = await runEval(request, { sandbox });
    ids.push(run.id);
  }
  return ids as [string, string];
}

function blobCount(home: string): number {
  const store = openStore(join(home, "verdict.db"));
  try {
    return (store.db.prepare("SELECT COUNT(*) AS n FROM blobs").get() as { n: number }).n;
  } finally {
    store.close();
  }
}

async function runIds(home: string): Promise<string[]> {
  const listed = await runVerdictInProcess(["runs", "--json", "--home", home]);
  return (JSON.parse(listed.stdout) as { id: string }[]).map((run) => run.id);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("clean --run removes a run's record, its folder and the blobs only it used; the other run still verifies; --keep 0 empties the folder", async () => {
  await using dir = await scratchDir("clean-runs");
  const [loop, faulty] = await twoRuns(dir.path);
  const before = blobCount(dir.path);

  const cleaned = await runVerdictInProcess(["clean", "--run", loop, "--home", dir.path]);
  assert.equal(cleaned.code, 0, cleaned.stderr);
  assert.match(cleaned.stdout, new RegExp(`^removed run ${loop} \\(loop, scripted\\)$`, "m"));
  assert.match(cleaned.stdout, /removed [1-9]\d* stored blobs? \([\d.]+ KiB\) no run refers to/);
  assert.deepEqual(await runIds(dir.path), [faulty]);
  assert.equal(await exists(join(dir.path, "runs", loop)), false);
  const after = blobCount(dir.path);
  assert.ok(after < before && after > 0, `${before} blobs, then ${after}`);
  const verified = await runVerdictInProcess(["verify", faulty, "--home", dir.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const again = await runVerdictInProcess(["clean", "--keep", "1", "--home", dir.path]);
  assert.match(again.stdout, /no run to remove\nremoved 0 stored blobs/, "every blob left is used");

  const emptied = await runVerdictInProcess(["clean", "--keep", "0", "--home", dir.path]);
  assert.equal(emptied.code, 0, emptied.stderr);
  assert.deepEqual(await runIds(dir.path), []);
  assert.equal(blobCount(dir.path), 0);
});

Deno.test("clean never touches a run another verdict holds (exit 2), and keeps blobs while any run is in progress", async () => {
  await using dir = await scratchDir("clean-live");
  const [loop, faulty] = await twoRuns(dir.path);
  const before = blobCount(dir.path);
  const lock = tryLockRun(join(dir.path, "runs", faulty))!;
  try {
    const refused = await runVerdictInProcess(["clean", "--keep", "0", "--home", dir.path]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, new RegExp(`run ${faulty} is in progress`));
    assert.deepEqual((await runIds(dir.path)).sort(), [loop, faulty].sort(), "nothing removed");

    const one = await runVerdictInProcess(["clean", "--run", loop, "--home", dir.path]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`kept the stored blobs: run ${faulty} is in progress`));
    assert.equal(blobCount(dir.path), before);
  } finally {
    lock.release();
  }
  const later = await runVerdictInProcess(["clean", "--run", "faultye", "--home", dir.path]);
  assert.equal(later.code, 2);
  assert.match(later.stderr, /no run 'faultye'/);
  const both = await runVerdictInProcess([
    "clean",
    "--run",
    faulty,
    "--keep",
    "1",
    "--home",
    dir.path,
  ]);
  assert.equal(both.code, 2);
  const ended = await runVerdictInProcess(["clean", "--keep", "1", "--home", dir.path]);
  assert.match(ended.stdout, /removed [1-9]\d* stored blobs?/);
  assert.ok(blobCount(dir.path) < before);
  assert.equal((await runVerdictInProcess(["verify", faulty, "--home", dir.path])).code, 0);
});

Deno.test("a clean killed midway is finished by the next: a run folder moved aside, a record left", async () => {
  await using dir = await scratchDir("clean-killed");
  const [loop, faulty] = await twoRuns(dir.path);
  const runs = join(dir.path, "runs");
  // Killed after the folder was moved aside, before the record went.
  await Deno.rename(join(runs, loop), join(runs, `.removing-${loop}`));
  const finished = await runVerdictInProcess(["clean", "--run", loop, "--home", dir.path]);
  assert.equal(finished.code, 0, finished.stderr);
  assert.deepEqual(await runIds(dir.path), [faulty]);
  assert.equal(await exists(join(runs, `.removing-${loop}`)), false);
  // Killed after the record went, before the folder did.
  await Deno.mkdir(join(runs, ".removing-gone", "logs"), { recursive: true });
  const swept = await runVerdictInProcess(["clean", "--keep", "1", "--home", dir.path]);
  assert.equal(swept.code, 0, swept.stderr);
  assert.equal(await exists(join(runs, ".removing-gone")), false);
  assert.deepEqual(await runIds(dir.path), [faulty]);
  assert.equal((await runVerdictInProcess(["verify", faulty, "--home", dir.path])).code, 0);
});
