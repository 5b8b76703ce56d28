/**
 * `verdict eval --shard K/N` and `verdict merge`: an experiment run whole and as two shards in
 * two state folders, the shards merged into a third; the merged run is the unsharded one (id,
 * verdicts, stats, comparisons, gates), it verifies, and what merge must refuse it refuses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runConfig } from "../../src/eval/setup/run_identity.ts";
import type { Results } from "../../src/report/results.ts";
import { type ComparedRun, compareRuns } from "../../src/stats/compare.ts";
import { decideGate, parseGate } from "../../src/stats/gate.ts";
import { openStore } from "../../src/store/store.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

// Sorted ids: always-passes, trivial, unsolved; shard 1/2 takes the first and the third, so the
// merge must interleave. nop fails all but always-passes, whose tests test nothing: both verdicts
// occur. Each task's test prints the same every time, so two runs can be compared whole.
const EXPERIMENT = [
  "tests/fixtures/bench/trivial",
  "tests/fixtures/no-solution/unsolved",
  "tests/fixtures/check/always-passes",
  "--agent",
  "nop",
  "--repeat",
  "2",
];

/** The trials of a results.json without what may differ between two runs: wall times. */
function withoutWallTimes(results: Results): unknown {
  const { created_at: _created, ...run } = results.run;
  return {
    ...results,
    run,
    trials: results.trials.map(({ duration_ms: _duration, ...trial }) => trial),
  };
}

function comparedRun(home: string, id: string): ComparedRun {
  const store = openStore(join(home, "verdict.db"));
  try {
    const config = runConfig(store.runs.get(id)!);
    const { suite_digest, tasks, repeat } = config;
    return { id, suite_digest, tasks, repeat, trials: store.runs.trialVerdicts(id) };
  } finally {
    store.close();
  }
}

// `verdict stats --json` without the wall-time statistics.
async function statsWithoutWallTimes(home: string, id: string): Promise<unknown> {
  const stats = await runVerdictInProcess(["stats", id, "--json", "--home", home]);
  assert.equal(stats.code, 0, stats.stderr);
  return JSON.parse(stats.stdout, (key, value) => key === "wall_ms" ? undefined : value);
}

Deno.test("eval --shard 1/2, 2/2 merged equals the unsharded run; merge refuses other experiments, gaps, twins, unfinished shards and a target holding the run", async () => {
  await requireDocker();
  await using scratch = await scratchDir("merge");
  const home = (name: string) => join(scratch.path, name);
  const evals = await Promise.all([
    runVerdict(["eval", ...EXPERIMENT, "--json", "--home", home("whole")]),
    ...[1, 2].map((k) =>
      runVerdict(["eval", ...EXPERIMENT, "--shard", `${k}/2`, "--json", "--home", home(`s${k}`)])
    ),
    // Another experiment (seed 1), and a shard with no task: 3 tasks cannot fill 5 shards.
    runVerdict([
      "eval",
      ...EXPERIMENT,
      "--seed",
      "1",
      "--shard",
      "5/5",
      "--json",
      "--home",
      home("other"),
    ]),
  ]);
  for (const result of evals) assert.equal(result.code, 0, result.stderr);
  const [whole, s1, s2, other] = evals.map((result) => JSON.parse(result.stdout) as Results);
  const id = whole.run.id;
  assert.match(evals[1].stdout + evals[1].stderr, /shard 1\/2 of 3 tasks/);

  // Every shard has the whole run's id; each holds its tasks' repeats, together; the union is all.
  const trialsOf = (results: Results) => results.trials.map((t) => `${t.task}#${t.repeat}`);
  assert.deepEqual([s1, s2].map((shard) => shard.run.id), [id, id]);
  assert.deepEqual([s1, s2].map((shard) => shard.run.shard), [
    { index: 1, count: 2 },
    { index: 2, count: 2 },
  ]);
  assert.deepEqual(trialsOf(s1), [
    "always-passes#0",
    "always-passes#1",
    "unsolved#0",
    "unsolved#1",
  ]);
  assert.deepEqual(trialsOf(s2), ["trivial#0", "trivial#1"]);
  assert.deepEqual([...trialsOf(s1), ...trialsOf(s2)].sort(), trialsOf(whole));
  assert.deepEqual(other.trials, [], "an empty shard is a valid run of no trials");
  assert.deepEqual(other.run.shard, { index: 5, count: 5 });
  assert.equal(whole.run.shard, undefined, "an unsharded run records no shard");

  // Merged from a state folder and a run folder: the unsharded run, wall times aside.
  const runFolder = (name: string) => join(home(name), "runs", id);
  const merge = await runVerdictInProcess([
    "merge",
    home("s2"),
    runFolder("s1"),
    "--json",
    "--home",
    home("merged"),
  ]);
  assert.equal(merge.code, 0, merge.stderr);
  assert.match(merge.stderr, new RegExp(`^merged 2 shards into run ${id} in `));
  const merged = JSON.parse(merge.stdout) as Results;
  assert.deepEqual(withoutWallTimes(merged), withoutWallTimes(whole));
  assert.deepEqual(
    merged.trials.map((trial) => trial.verdict),
    ["pass", "pass", "fail", "fail", "fail", "fail"],
  );
  const written = JSON.parse(await Deno.readTextFile(join(runFolder("merged"), "results.json")));
  assert.deepEqual(written, merged);
  assert.deepEqual(
    await statsWithoutWallTimes(home("merged"), id),
    await statsWithoutWallTimes(home("whole"), id),
  );
  // verify recomputes every chain and blob, and rebuilds results.json and report.md.
  const verify = await runVerdictInProcess(["verify", id, "--home", home("merged")]);
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);

  // Compared with each other: no flip, and the gate passes; against any third run, the same
  // comparison and the same gate decision.
  const [wholeRun, mergedRun] = [comparedRun(home("whole"), id), comparedRun(home("merged"), id)];
  const between = compareRuns(wholeRun, mergedRun);
  assert(
    between.comparable && between.pairs === 6 && between.flips.length === 0,
    JSON.stringify(between),
  );
  const gate = parseGate("max_drop_pp: 0\nmin_cases: 6\n", "gate.yaml");
  assert.deepEqual(decideGate(gate, between), { passed: true, reasons: [] });
  const third: ComparedRun = {
    ...wholeRun,
    id: "third",
    trials: wholeRun.trials.map((trial) => ({
      ...trial,
      session: `x${trial.session}`,
      verdict: "pass",
    })),
  };
  assert.deepEqual(compareRuns(third, mergedRun), compareRuns(third, wholeRun));
  assert.deepEqual(
    decideGate(gate, compareRuns(third, mergedRun)),
    decideGate(gate, compareRuns(third, wholeRun)),
  );

  // Refused, exit 2, naming the argument at fault.
  const refused = async (args: string[], target: string, expected: RegExp) => {
    const result = await runVerdictInProcess(["merge", ...args, "--home", home(target)]);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, expected);
  };
  const [one, two] = [runFolder("s1"), runFolder("s2")];
  await refused(
    [one, two, home("other")],
    "refused",
    new RegExp(`${home("other")} is a shard of another experiment than ${one}: its seed is 1`),
  );
  await refused([one], "refused", /lacks shard 2\/2: give every shard from 1\/2 to 2\/2/);
  await refused([one, two, one], "refused", /both shard 1\/2 of run/);
  await refused([home("whole"), one], "refused", /made without --shard/);
  // The same shards again: the merged run is already there, whole; its files are written again.
  const mergedFile = join(home("merged"), "runs", id, "results.json");
  const before = await Deno.readTextFile(mergedFile);
  await Deno.remove(mergedFile);
  const cut = await runVerdictInProcess(["verify", id, "--home", home("merged")]);
  assert.equal(cut.code, 1, "a merge stopped before its files never verifies");
  assert.match(cut.stdout, /results\.json is not what the record says: it is missing/);
  const again = await runVerdictInProcess(["merge", one, two, "--home", home("merged")]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /\(0 events, 0 blobs copied\)/);
  assert.equal(await Deno.readTextFile(mergedFile), before);
  await refused([two, one], "s1", new RegExp(`already holds run ${id}`));
  await refused([join(scratch.path, "nowhere")], "refused", /given as a shard, is not a folder/);
  await assert.rejects(
    Deno.stat(home("refused")),
    Deno.errors.NotFound,
    "a refused merge makes nothing, not even the state folder",
  );
  // An interrupted shard is refused until it is resumed.
  const store = openStore(join(home("s2"), "verdict.db"));
  store.runs.setStatus(id, "interrupted");
  store.close();
  await refused(
    [one, two],
    "refused",
    new RegExp(`${two} is shard 2/2 of run ${id}, and it is unfinished .*verdict resume ${id}`),
  );
});

Deno.test("verdict --help lists merge; a shard outside the project or named by no folder is exit 2 naming it", async () => {
  const help = await runVerdict(["--help"]);
  assert.match(help.stdout, /^ {2}merge RUN\.\.\. +join the shard runs of one experiment/m);
  await using home = await scratchDir("merge_args");
  // A subprocess: the refusal names what the permission set lets it read.
  const outside = await runVerdict(["merge", "/etc", "--home", home.path]);
  assert.equal(outside.code, 2, outside.stderr);
  assert.match(
    outside.stderr,
    /^verdict: cannot read \/etc, given as a shard: .*Fix: copy the shard's/,
  );
  await Deno.mkdir(join(home.path, "loose"));
  const loose = await runVerdictInProcess(["merge", join(home.path, "loose"), "--home", home.path]);
  assert.equal(loose.code, 2, loose.stderr);
  assert.match(loose.stderr, /loose, given as a shard, is neither a run folder \(STATE\/runs\/ID/);
});

Deno.test("a shard whose verdict.db is empty or not SQLite is refused as no database (exit 2), one whose events are a view as not Verdict's record (exit 1), each naming the file", async () => {
  await using dir = await scratchDir("merge_bad_shards");
  const shard = async (name: string, database: (path: string) => Promise<void>) => {
    const home = join(dir.path, name);
    await Deno.mkdir(home);
    await database(join(home, "verdict.db"));
    await Deno.mkdir(join(home, "runs", "abc123def456"), { recursive: true });
    return home;
  };
  const target = join(dir.path, "target");
  const empty = await shard("empty", (path) => Deno.writeFile(path, new Uint8Array()));
  const text = await shard("text", (path) => Deno.writeTextFile(path, "not a database\n"));
  for (const home of [empty, text, join(text, "runs", "abc123def456")]) {
    const merged = await runVerdictInProcess(["merge", home, "--home", target]);
    assert.equal(merged.code, 2, merged.stderr);
    assert.match(merged.stderr, /, given as a shard: .*verdict\.db is not a SQLite database/);
    assert(merged.stderr.includes(home), merged.stderr);
  }
  const view = await shard("view", (path) => {
    const store = openStore(path);
    store.runs.create({ id: "abc123def456", config: {}, createdAt: 0 });
    store.close();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA foreign_keys = OFF; ALTER TABLE events RENAME TO events_kept;
      CREATE VIEW events AS SELECT * FROM events_kept;`);
    db.close();
    return Promise.resolve();
  });
  const merged = await runVerdictInProcess(["merge", view, "--home", target]);
  assert.equal(merged.code, 1, merged.stderr);
  assert.match(
    merged.stderr,
    new RegExp(`${join(view, "verdict.db")} is damaged: events is a view, not a table`),
  );
  assert.equal(await Deno.stat(join(target, "verdict.db")).then(() => true, () => false), false);
});

Deno.test("an installed agent's own files are part of the experiment: other files give another run id and merge refuses the shards (exit 2), resume refuses changed files; the same files elsewhere give the same id", async () => {
  await requireDocker();
  await using dir = await scratchDir("merge_agent_files");
  const files = async (name: string, content: string) => {
    const folder = join(dir.path, name);
    await Deno.mkdir(folder);
    await Deno.writeTextFile(join(folder, "agent.sh"), content);
    return folder;
  };
  const first = await files("first", "exit 0\n");
  const again = await files("again", "exit 0\n");
  const other = await files("other", "exit 0 # another agent\n");
  const shard = async (folder: string, k: number, home: string) => {
    const result = await runVerdict([
      "eval",
      "tasks/fix-slugify",
      "tasks/fix-csv-quoting",
      "--agent",
      "cmd:sh /verdict/agent/agent.sh",
      "--agent-files",
      folder,
      "--shard",
      `${k}/2`,
      "--home",
      join(dir.path, home),
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return /^run (\S+):/m.exec(result.stdout)![1];
  };
  const one = await shard(first, 1, "a");
  const two = await shard(other, 2, "b");
  assert.notEqual(one, two, "other files: another experiment");
  assert.equal(await shard(again, 2, "c"), one, "the same files in another folder: the same one");
  const merged = await runVerdictInProcess([
    "merge",
    join(dir.path, "a"),
    join(dir.path, "b"),
    "--home",
    join(dir.path, "merged"),
  ]);
  assert.equal(merged.code, 2, merged.stderr);
  assert.match(merged.stderr, /agent_digest/);
  // Nor does a run go on over files changed since it started.
  await Deno.writeTextFile(join(first, "agent.sh"), "exit 1\n");
  const resumed = await runVerdictInProcess(["resume", one, "--home", join(dir.path, "a")]);
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.match(resumed.stderr, /the agent's files at .*first changed since the run started/);
});
