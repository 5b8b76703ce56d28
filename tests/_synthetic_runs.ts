/**
 * Runs written straight into a state database, for tests of the commands that read runs
 * (`stats`, `compare`, `report`) without running containers.
 *
 * @module
 */
import { join } from "node:path";
import type { TrialRecord } from "../src/store/trial_record.ts";
import { EVENT, event } from "../src/store/event_catalogue.ts";
import { chainedSummary } from "../src/store/run_table.ts";
import { openStore } from "../src/store/store.ts";

/** One synthetic trial: task, repeat, verdict. */
export type SyntheticTrial = [task: string, repeat: number, verdict: "pass" | "fail"];

/** Writes a finished run with these trials into `home`'s database; returns nothing. */
export async function writeRun(
  home: string,
  id: string,
  trials: SyntheticTrial[],
  config: {
    suite_digest?: string;
    repeat?: number;
    agent?: string;
    agent_needs?: { model: boolean; solutions: boolean; gateway?: boolean };
  } = {},
): Promise<void> {
  await Deno.mkdir(join(home, "runs"), { recursive: true });
  const store = openStore(join(home, "verdict.db"));
  const tasks = [...new Set(trials.map(([task]) => task))].sort();
  store.runs.create({
    id,
    config: {
      agent: config.agent ?? "loop",
      model: "scripted",
      ...(config.agent_needs ? { agent_needs: config.agent_needs } : {}),
      seed: 0,
      repeat: config.repeat ?? Math.max(...trials.map(([, repeat]) => repeat)) + 1,
      tasks,
      suite_digest: config.suite_digest ?? "digest-1",
      harness_version: "0.1.0",
      settings: null,
      attempt: 1,
      concurrency: 1,
      paths: ["tasks"],
      task_dirs: Object.fromEntries(tasks.map((task) => [task, `tasks/${task}`])),
      categories: Object.fromEntries(tasks.map((task) => [task, "bugfix"])),
    },
    createdAt: 0,
  });
  store.runs.setStatus(id, "finished");
  for (const [task, repeat, verdict] of trials) {
    const session = `${id}-${task}-${repeat}`;
    store.runs.createSession({ id: session, run: id, task, repeat });
    const record = syntheticRecord(session, task, repeat, verdict);
    store.events.append(session, [event(EVENT.trialVerdict, chainedSummary(record))]);
    store.runs.finishSession(session, record);
  }
  store.close();
}

/** A results.json trial with plausible numbers. */
export function syntheticRecord(
  session: string,
  task: string,
  repeat: number,
  verdict: "pass" | "fail",
): TrialRecord {
  return {
    task,
    repeat,
    session,
    verdict,
    bucket: verdict === "pass" ? "pass" : "agent_failure",
    reason: verdict === "pass" ? "tests passed" : "tests failed (tests/test.sh exited 1)",
    stop_reason: "completed",
    steps: 5 + (repeat % 3),
    tool_calls: 7,
    denied_calls: 0,
    compactions: 0,
    tokens: { input: 8000 + repeat * 10, output: 900 },
    cost_usd: 0.0125,
    end_state_root: null,
    initial_root: null,
    changed_paths: 2,
    duration_ms: 8000 + repeat * 100,
    checks: [],
    requirements: [],
    success: null,
    canary: null,
  };
}
