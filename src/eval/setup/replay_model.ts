/**
 * `--model replay:RUN|SESSION`: a live eval whose model is a recorded run. Each trial (task,
 * repeat) takes the recorded session of the same task and repeat (a SESSION serves its task at
 * every repeat) and answers each request with the recorded response, after checking that the
 * request's fingerprint equals the recorded one: the model of `verdict replay`
 * ({@linkcode sessionDriver}), behind a live loop whose tools run for real. A request that differs
 * ends the trial as an `infrastructure_error` naming the step, the JSON path, and the expected
 * and actual values. Everything about the source is checked before the run starts.
 *
 * @module
 */
import { EVENT, has } from "../../store/event_catalogue.ts";
import { join } from "node:path";
import { canonicalJson } from "../../core/canonical_json.ts";
import { InfrastructureError, UsageError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { nearest } from "../../core/suggest.ts";
import type { Model } from "../../model/model.ts";
import type { RunRecord, SessionRecord } from "../../store/run_table.ts";
import { openStore, type Store } from "../../store/store.ts";
import type { Task } from "../../task/task.ts";
import type { ReplaySettings } from "./loop_settings.ts";
import { requestDifference } from "../trial/request_difference.ts";
import { runConfig } from "./run_identity.ts";
import { SessionDivergence, sessionDriver } from "../trial/session_driver.ts";

/** A recorded run (or one session of it) that answers a new eval's requests. */
export interface ReplaySource {
  /** The model spec, canonical: `replay:` and the full run or session id. */
  readonly spec: string;
  /** The model whose responses were recorded: prices are looked up under it. */
  readonly recordedModel: string;
  /** What the run records about the source (part of the run id): which record, and its digest. */
  readonly settings: ReplaySettings;
  /** The model of one trial of the new eval. */
  model(trial: { task: Task; session: string }): Promise<Model>;
}

/**
 * A recorded request differed from the new eval's: the trial cannot go on from the record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReplayDivergence } from "./replay_model.ts";
 * const error = new ReplayDivergence("replay:abc diverged at step 2");
 * assert(error.exitCode === 3 && error.name === "ReplayDivergence");
 * ```
 */
export class ReplayDivergence extends InfrastructureError {
  /** Makes the error. */
  constructor(message: string) {
    super(message);
    this.name = "ReplayDivergence";
  }
}

/**
 * Finds and checks the source of `--model replay:ID` in the state directory `home`: a run (id or
 * unique prefix) whose sessions cover every selected task at repeats `0..repeat-1`, or one
 * session, whose task must be the only one selected.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadReplaySource } from "./replay_model.ts";
 * // A state directory with no database: exit 2, naming where it looked.
 * const home = Deno.makeTempDirSync();
 * assert.throws(() => loadReplaySource(home, "abc123", [], 1), { exitCode: 2 });
 * Deno.removeSync(home);
 * ```
 * @throws {UsageError} when there is no such run or session, it is not a finished loop run, or it
 * lacks a session for a selected task or repeat (exit 2, naming the run and the fix).
 */
export function loadReplaySource(
  home: string | undefined,
  id: string,
  tasks: readonly Task[],
  repeat: number,
): ReplaySource {
  const flag = `--model replay:${id}`;
  const path = replayDatabase(home, id, flag);
  return withStore(path, (store) => {
    const { run, session } = resolveSource(store, id, flag);
    const config = runConfig(run);
    if (config.agent_needs.gateway) {
      throw new UsageError(
        `${flag}: run ${run.id} used the installed agent ${config.agent}, whose model calls went ` +
          `through its gateway; --model replay: answers Verdict's own loop only. To run that ` +
          `agent again against its record, use 'verdict replay ${run.id}'`,
      );
    }
    if (!config.agent_needs.model || config.model === null) {
      throw new UsageError(
        `${flag}: run ${run.id} used the ${config.agent} agent, which recorded no model ` +
          `responses; give a run of the loop agent`,
      );
    }
    // A session serves its task at every repeat; a run, each (task, repeat) its own session.
    const trials = session !== undefined
      ? sessionTrials(session, run, tasks, flag)
      : runTrials(store, run, config, { tasks, repeat, flag });
    const heads = recordHeads(store, trials, run, flag);
    const recordedModel = config.model.startsWith("replay:")
      ? config.settings?.replay?.model ?? config.model
      : config.model;
    const sourceId = session?.id ?? run.id;
    return {
      spec: `replay:${sourceId}`,
      recordedModel,
      // Keys in canonical (sorted) order, as the run's configuration stores them: resume compares
      // the two as JSON text.
      settings: {
        id: sourceId,
        model: recordedModel,
        record_sha256: sha256Hex(canonicalJson(heads)),
        source: session ? "session" : "run",
      },
      model: (trial) =>
        Promise.resolve(
          trialModel(path, sourceId, trial, (repeat) =>
            session ?? trials.get(trialKey(trial.task.id, repeat))),
        ),
    };
  });
}

// The state database a replay reads its record from.
function replayDatabase(home: string | undefined, id: string, flag: string): string {
  if (home === undefined) {
    throw new UsageError(`${flag} reads a recorded run: it needs the state directory (--home)`);
  }
  const path = join(home, "verdict.db");
  try {
    Deno.statSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(
      `${flag}: no state database at ${path} to read the recorded run from; point --home (or ` +
        `VERDICT_HOME) at the state directory that holds run ${id}`,
    );
  }
  return path;
}

// One session as the source: it answers its own task only, at every repeat.
function sessionTrials(
  session: SessionRecord,
  run: RunRecord,
  tasks: readonly Task[],
  flag: string,
): Map<string, SessionRecord> {
  const others = tasks.filter((task) => task.id !== session.task).map((task) => task.id);
  if (others.length > 0) {
    throw new UsageError(
      `${flag}: session ${session.id} recorded task ${session.task} only, so it cannot ` +
        `answer ${others.join(", ")}; add --task ${session.task}, or give run ${run.id}`,
    );
  }
  return new Map([[session.id, session]]);
}

// A run as the source: each selected (task, repeat) answered by its own recorded session.
function runTrials(
  store: Store,
  run: RunRecord,
  config: { tasks: string[]; repeat: number },
  selected: { tasks: readonly Task[]; repeat: number; flag: string },
): Map<string, SessionRecord> {
  const recorded = new Map(
    store.runs.sessions(run.id).map((entry) => [trialKey(entry.task, entry.repeat), entry]),
  );
  const trials = new Map<string, SessionRecord>();
  const missing: string[] = [];
  for (const task of selected.tasks) {
    for (let index = 0; index < selected.repeat; index++) {
      const entry = recorded.get(trialKey(task.id, index));
      if (entry === undefined) missing.push(trialKey(task.id, index));
      else trials.set(trialKey(task.id, index), entry);
    }
  }
  if (missing.length > 0) {
    throw new UsageError(
      `${selected.flag}: run ${run.id} has no session for ${missing.slice(0, 5).join(", ")}${
        missing.length > 5 ? ` and ${missing.length - 5} more` : ""
      } (it recorded ${config.tasks.join(", ")}, ${config.repeat} repeat(s) each); select ` +
        `recorded tasks with --task and at most --repeat ${config.repeat}`,
    );
  }
  return trials;
}

// Each source session's task, repeat, id and chain head: finished, and past the agent's start.
function recordHeads(
  store: Store,
  trials: Map<string, SessionRecord>,
  run: RunRecord,
  flag: string,
): string[][] {
  const heads: string[][] = [];
  for (const entry of trials.values()) {
    const name = `session ${entry.id} (${trialKey(entry.task, entry.repeat)}) of run ${run.id}`;
    if (entry.status !== "finished") {
      throw new UsageError(
        `${flag}: ${name} is unfinished; finish it with 'verdict resume ${run.id}' first`,
      );
    }
    const events = store.events.read(entry.id);
    if (!has(events, EVENT.loopStarted)) {
      const result = entry.result;
      throw new UsageError(
        `${flag}: ${name} never reached the agent (it ended ${result?.bucket}: ` +
          `${result?.reason}), so it recorded no model responses; give another run`,
      );
    }
    heads.push([entry.task, String(entry.repeat), entry.id, events.at(-1)!.hash]);
  }
  return heads;
}

/** The model of one trial: the source session's record behind a fingerprint check. */
function trialModel(
  path: string,
  sourceId: string,
  trial: { task: Task; session: string },
  recordedFor: (repeat: number) => SessionRecord | undefined,
): Model {
  const source = withStore(path, (store) => {
    // The new trial's repeat is in its session row, written before any trial starts.
    const repeat = store.runs.session(trial.session)?.repeat;
    const session = repeat === undefined ? undefined : recordedFor(repeat);
    if (session === undefined) {
      throw new InfrastructureError(
        `replay:${sourceId} has no recorded session for trial ${trial.session} of ` +
          `${trial.task.id} in ${path}`,
      );
    }
    return { session, events: store.events.read(session.id) };
  });
  const recorded = sessionDriver(source.events).wrapModel(null);
  const spec = `replay:${sourceId}`;
  return {
    spec,
    remote: false,
    async complete(request, options) {
      try {
        return await recorded.complete(request, options);
      } catch (error) {
        if (!(error instanceof SessionDivergence)) throw error;
        const { step, request: actual } = error;
        const difference = actual
          ? withStore(path, (store) => requestDifference(store, source.events, step, actual))
          : undefined;
        throw new ReplayDivergence(
          `${spec} diverged at step ${error.step} from session ${source.session.id} (${
            trialKey(source.session.task, source.session.repeat)
          }): ${error.message}` +
            (difference
              ? ` at request.${difference.path}: expected ${difference.expected}, actual ${difference.actual}`
              : ""),
        );
      }
    },
  };
}

function resolveSource(
  store: Store,
  id: string,
  flag: string,
): { run: RunRecord; session?: SessionRecord } {
  const runs = store.runs.list();
  const exact = store.runs.get(id);
  const prefixed = exact ? [exact] : runs.filter((run) => run.id.startsWith(id));
  if (prefixed.length > 1) {
    throw new UsageError(
      `${flag}: run prefix '${id}' is ambiguous: ${
        prefixed.map((run) => run.id).join(", ")
      }; give more of the id`,
    );
  }
  if (prefixed.length === 1) return { run: prefixed[0] };
  const sessions = store.runs.sessionIdsStartingWith(id);
  if (sessions.length > 1) {
    throw new UsageError(
      `${flag}: session prefix '${id}' is ambiguous: ${sessions.join(", ")}; give more of the id`,
    );
  }
  const session = store.runs.session(sessions[0] ?? id);
  if (session === undefined) {
    const guess = nearest(id, [
      ...runs.map((run) => run.id),
      ...store.runs.sessionIdsStartingWith(""),
    ]);
    throw new UsageError(
      `${flag}: no run or session '${id}' in ${store.path}${
        guess ? `; did you mean ${guess}?` : ""
      }; give the run id 'verdict eval' printed (or a session id), and --home where it was recorded`,
    );
  }
  return { run: store.runs.get(session.run)!, session };
}

function trialKey(task: string, repeat: number): string {
  return `${task}#${repeat}`;
}

function withStore<T>(path: string, work: (store: Store) => T): T {
  const store = openStore(path);
  try {
    return work(store);
  } finally {
    store.close();
  }
}
