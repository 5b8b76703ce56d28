/**
 * A run cut off before all its trials got a verdict (interrupted, killed, or still going), written
 * straight into a state database for tests of the commands that read runs.
 *
 * @module
 */
import { join } from "node:path";
import type { RunStatus } from "../src/store/run_table.ts";
import { EVENT, event } from "../src/store/event_catalogue.ts";
import { chainedSummary } from "../src/store/run_table.ts";
import { openStore } from "../src/store/store.ts";
import { syntheticRecord } from "./_synthetic_runs.ts";

/**
 * Writes run `id` of task `t` with `repeats` trials, of which the first `finished` passed and the
 * rest have no verdict; the sessions are `${id}-t-${repeat}`.
 */
export async function writeUnfinishedRun(
  home: string,
  id: string,
  { repeats, finished, status }: { repeats: number; finished: number; status: RunStatus },
): Promise<void> {
  await Deno.mkdir(join(home, "runs"), { recursive: true });
  const store = openStore(join(home, "verdict.db"));
  store.runs.create({
    id,
    config: {
      agent: "loop",
      model: "scripted",
      seed: 0,
      repeat: repeats,
      tasks: ["t"],
      suite_digest: "digest-1",
      harness_version: "0.1.0",
      settings: null,
      attempt: 1,
      concurrency: 1,
      paths: ["tasks"],
      task_dirs: { t: "tasks/t" },
      categories: { t: "bugfix" },
    },
    createdAt: 0,
  });
  store.runs.setStatus(id, status);
  for (let repeat = 0; repeat < repeats; repeat++) {
    const session = `${id}-t-${repeat}`;
    store.runs.createSession({ id: session, run: id, task: "t", repeat });
    if (repeat >= finished) continue;
    const record = syntheticRecord(session, "t", repeat, "pass");
    store.events.append(session, [event(EVENT.trialVerdict, chainedSummary(record))]);
    store.runs.finishSession(session, record);
  }
  store.close();
}
