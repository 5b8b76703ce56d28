/**
 * `verdict stats` on 100,000 synthetic trials (1,000 tasks × 100 repeats, so pass@k runs to
 * k = 100): the figure is the work the command does, reading every trial's result from a real
 * SQLite file and computing the statistics, and also the whole command as a process. Run:
 * `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import { SplitMix64 } from "../src/core/rng.ts";
import { runStats } from "../src/stats/run_stats.ts";
import { openStore } from "../src/store/store.ts";
import { syntheticRecord } from "../tests/_synthetic_runs.ts";
import { scratchFolder } from "./_measure.ts";

const TASKS = 1_000;
const REPEATS = 100;

await using dir = await scratchFolder("stats-bench");
const store = openStore(join(dir.path, "verdict.db"));
const rng = new SplitMix64(42);
store.transaction(() => {
  store.runs.create({ id: "bench", config: { repeat: REPEATS, tasks: [] }, createdAt: 0 });
  store.runs.setStatus("bench", "finished");
  const insert = store.db.prepare(
    "INSERT INTO sessions (id, run_id, task, repeat, head_hash) VALUES (?, 'bench', ?, ?, '')",
  );
  for (let task = 0; task < TASKS; task++) {
    const skill = rng.nextFloat();
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const session = `s-${task}-${repeat}`;
      const record = syntheticRecord(
        session,
        `task-${task}`,
        repeat,
        rng.nextFloat() < skill ? "pass" : "fail",
      );
      insert.run(session, record.task, repeat);
      store.runs.finishSession(session, record);
    }
  }
});
store.close();

const start = performance.now();
const reading = openStore(join(dir.path, "verdict.db"));
const stats = runStats(reading.runs.trialSummaries("bench"));
const inProcess = (performance.now() - start) / 1000;
reading.close();

const commandStart = performance.now();
const output = await new Deno.Command("deno", {
  args: ["run", "-P=verdict", "--quiet", "cli.ts", "stats", "bench", "--json", "--home", dir.path],
  stdout: "piped",
  stderr: "piped",
}).output();
const command = (performance.now() - commandStart) / 1000;
if (output.code !== 0) throw new Error(new TextDecoder().decode(output.stderr));
console.log(
  `stats on ${stats.overall.n} trials (${TASKS} tasks × ${REPEATS} repeats, pass@k to k = ${REPEATS}): ` +
    `${inProcess.toFixed(3)} s reading and computing (target <= 1 s); ${
      command.toFixed(3)
    } s as a whole ` +
    `'verdict stats' process, start-up included`,
);
