/**
 * Finished runs written straight into a state database whose trials recorded model answers with
 * the provider's cache counts, for tests of the prompt-cache statistics.
 *
 * @module
 */
import { join } from "node:path";
import type { LoopSettings } from "../../src/eval/setup/loop_settings.ts";
import { EVENT, event, type EventPayload } from "../../src/store/event_catalogue.ts";
import { chainedSummary } from "../../src/store/run_table.ts";
import { openStore } from "../../src/store/store.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";

/** The loop's settings for a priced run, with no prices file. */
export const PRICED: LoopSettings = {
  base_url: null,
  policy: "default",
  prices_file: null,
  prices_sha256: null,
  cost: "priced",
  tools: [],
};

/** A run to write: its model and settings, and per trial the usage of each model call. */
export interface CacheRun {
  /** The run id. */
  id: string;
  /** The recorded model spec (null for an agent with no model). */
  model: string | null;
  /** The recorded loop settings. */
  settings: LoopSettings | null;
  /** Per trial, its calls' usages; `via: "gateway"` records them as an installed agent's. */
  trials: {
    usages: EventPayload<typeof EVENT.modelResponse>["response"]["usage"][];
    via?: "loop" | "gateway";
    finished?: boolean;
  }[];
}

/** Writes the run into `home`'s database. */
export async function writeCacheRun(home: string, run: CacheRun): Promise<void> {
  await Deno.mkdir(join(home, "runs"), { recursive: true });
  const store = openStore(join(home, "verdict.db"));
  store.runs.create({
    id: run.id,
    config: {
      agent: "loop",
      model: run.model,
      seed: 0,
      repeat: run.trials.length,
      tasks: ["t"],
      suite_digest: "digest-1",
      harness_version: "0.1.0",
      settings: run.settings,
      attempt: 1,
      concurrency: 1,
      paths: ["tasks"],
      task_dirs: { t: "tasks/t" },
      categories: { t: "bugfix" },
    },
    createdAt: 0,
  });
  store.runs.setStatus(run.id, "finished");
  run.trials.forEach(({ usages, via = "loop", finished = true }, repeat) => {
    const session = `${run.id}-t-${repeat}`;
    store.runs.createSession({ id: session, run: run.id, task: "t", repeat });
    store.events.append(
      session,
      usages.map((usage, index) =>
        via === "loop"
          ? event(EVENT.modelResponse, {
            step: index + 1,
            // Long answers go to the blob table: their usage must still be counted.
            response: { content: "x".repeat(5000), toolCalls: [], finish: "stop", usage },
            cost_usd: null,
          })
          : event(EVENT.gatewayAnswer, {
            number: index + 1,
            status: 200,
            content_type: "application/json",
            body: "{}",
            usage,
            cost_usd: null,
          })
      ),
    );
    if (!finished) return;
    const record = syntheticRecord(session, "t", repeat, "pass");
    store.events.append(session, [event(EVENT.trialVerdict, chainedSummary(record))]);
    store.runs.finishSession(session, record);
  });
  store.close();
}
