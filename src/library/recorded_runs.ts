/**
 * What a program does with the runs a state folder holds, each by its run id, as the commands of
 * the same names do: resume an interrupted run, replay one against its record, verify its hash
 * chains and derived files, read its statistics, compare two runs, write its reports again. Each
 * opens the folder's database and closes it before it returns.
 *
 * @module
 */
import { join } from "node:path";
import type { Clock } from "../core/clock.ts";
import { UsageError } from "../core/errors.ts";
import { systemClock } from "../core/system_clock.ts";
import type { Sandbox } from "../engine/sandbox.ts";
import { type DerivedFileProblem, derivedFileProblems } from "../report/derived_files.ts";
import type { Results } from "../report/results.ts";
import { writeRunReports } from "../report/run_reports.ts";
import { type ComparedRun, compareRuns, type Comparison } from "../stats/compare.ts";
import { type RunStats, runStats } from "../stats/run_stats.ts";
import { checkDatabaseFile, DamagedStoreError } from "../store/damaged_store.ts";
import { pageProblems } from "../store/integrity.ts";
import type { RunRecord } from "../store/run_table.ts";
import { openStore, type Store } from "../store/store.ts";
import { type VerifyReport, verifyRun } from "../store/verify.ts";
import { replayRun, type SessionReplay } from "../eval/replay/replay.ts";
import { recordedChoices } from "../eval/setup/loop_choices.ts";
import { setupLoopAgent } from "../eval/setup/loop_setup.ts";
import { runConfig } from "../eval/setup/run_identity.ts";
import { eventBlobReferences } from "../eval/run/event_references.ts";
import { resumeRun } from "../eval/run/resume.ts";
import { runDeps, type RunOptions } from "../eval/run/run_eval.ts";
import type { EvalOutcome } from "../eval/run/run_lifecycle.ts";
import { runPromptCache } from "../eval/run/run_prompt_cache.ts";

/**
 * How an interrupted run is resumed: on an engine; anything else given must match the record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import type { ResumeOptions } from "./recorded_runs.ts";
 * const options: ResumeOptions = { sandbox: new MemorySandbox(), model: "scripted" };
 * assert.equal(options.policy, undefined);
 * ```
 */
export interface ResumeOptions extends RunOptions {
  /** The model spec, checked against the run's (not changed). */
  model?: string;
  /** The policy file, checked against the run's (not changed). */
  policy?: string;
  /** Where the model's API key is read (default the process's environment). */
  env?: (name: string) => string | undefined;
  /** Also run again, as new attempts, the trials that ended in an infrastructure error. */
  retryErrors?: boolean;
}

/**
 * Finishes an interrupted run of the state folder `home`: its finished trials are kept, every
 * other one continues from its last checkpoint, with the agent the run recorded (rebuilt from the
 * registry by its name, model and settings).
 *
 * @example A finished run has nothing left to do
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { resumeEval } from "./recorded_runs.ts";
 * const sandbox = new MemorySandbox();
 * const home = await Deno.makeTempDir();
 * const { run } = await runEval({ paths: ["tasks/fix-slugify"], agent: "nop", home }, { sandbox });
 * const resumed = await resumeEval(home, run.id, { sandbox });
 * assert.equal(resumed.results.summary.finished, 1);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when there is no such run, another process holds it, or the model, policy,
 * tools, harness version or tasks differ from the record (exit 2).
 */
export async function resumeEval(
  home: string,
  run: string,
  options: ResumeOptions,
): Promise<EvalOutcome> {
  const store = openStateStore(home);
  try {
    const deps = runDeps(options);
    const env = options.env ?? ((name: string) => Deno.env.get(name));
    return await resumeRun(requireRun(store, run), {
      model: options.model,
      policy: options.policy,
      retryErrors: options.retryErrors,
    }, {
      ...deps,
      store,
      home,
      loopSetup: (config, tasks) =>
        setupLoopAgent({ ...recordedChoices(config), env, home, clock: deps.clock }, tasks),
    });
  } finally {
    store.close();
  }
}

/**
 * How a run is replayed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplayOptions } from "./recorded_runs.ts";
 * const options: ReplayOptions = { live: false };
 * assert.equal(options.sessions, undefined);
 * ```
 */
export interface ReplayOptions {
  /** Only these sessions of the run (default all). */
  sessions?: string[];
  /** Run the tools again in a fresh container and compare their results. */
  live?: boolean;
  /** The engine, for `live` and for an installed agent's sessions. */
  sandbox?: Sandbox;
  /** The clock (default the system's). */
  clock?: Clock;
}

/**
 * Re-drives a run's sessions from their recorded model responses (no model is called) and
 * reports each: identical, or where it first diverged.
 *
 * @example A `nop` session is not a loop session: skipped
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { replayEval } from "./recorded_runs.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval({ paths: ["tasks/fix-slugify"], agent: "nop", home }, { sandbox });
 * const [session] = await replayEval(home, run.id);
 * assert.equal(session.status, "skipped");
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when there is no such run or session.
 */
export async function replayEval(
  home: string,
  run: string,
  options: ReplayOptions = {},
): Promise<SessionReplay[]> {
  const store = openStateStore(home);
  try {
    const record = requireRun(store, run);
    const all = store.runs.sessions(record.id);
    const sessions = options.sessions?.map((id) => {
      const session = all.find((session) => session.id === id);
      if (session === undefined) throw new UsageError(`run ${record.id} has no session '${id}'`);
      return session;
    }) ?? all;
    const clock = options.clock ?? systemClock;
    return await replayRun(record, sessions, {
      store,
      live: options.live === true,
      sandbox: options.sandbox,
      clock,
      home,
      loopSetup: (config, task) =>
        setupLoopAgent({
          ...recordedChoices(config),
          env: () => undefined,
          clock,
          forReplay: true,
          home,
        }, [task]),
    });
  } finally {
    store.close();
  }
}

/**
 * A run's verification: its hash chains and blobs, and its derived files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { VerifyOutcome } from "./recorded_runs.ts";
 * const intact: VerifyOutcome = {
 *   run: "r1", sessions: 1, events: 9, blobs: 2, problems: [], derived: [], intact: true,
 * };
 * assert(intact.intact);
 * ```
 */
export interface VerifyOutcome extends VerifyReport {
  /** `results.json` or `report.md` where it says something other than the record. */
  derived: DerivedFileProblem[];
  /** Whether nothing is wrong. */
  intact: boolean;
}

/**
 * Checks the database's pages, recomputes every hash chain, root and blob hash of a run, and
 * compares its `results.json` and `report.md` with the record (not while it is running).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { verifyEval } from "./recorded_runs.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval({ paths: ["tasks/fix-slugify"], agent: "nop", home }, { sandbox });
 * assert((await verifyEval(home, run.id)).intact);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {DamagedStoreError} when the database file or its pages are damaged (exit 1).
 * @throws {CorruptionError} when a row of the run is too damaged to read (exit 1).
 * @throws {UsageError} when there is no such run.
 */
export async function verifyEval(home: string, run: string): Promise<VerifyOutcome> {
  const store = openStateStore(home);
  try {
    const pages = pageProblems(store);
    if (pages.length > 0) throw new DamagedStoreError(store.path, pages[0]);
    const record = requireRun(store, run);
    const report = verifyRun(store, record.id, eventBlobReferences(store.blobs));
    // The files are compared only with an intact record, and not while the run is still going.
    const derived = report.problems.length > 0 || record.status === "running"
      ? []
      : await derivedFileProblems(store, record, join(home, "runs", record.id));
    return { ...report, derived, intact: report.problems.length === 0 && derived.length === 0 };
  } finally {
    store.close();
  }
}

/**
 * A run's statistics: per task and overall, pass rates with Wilson intervals, pass@k, pass^k,
 * costs and the provider's prompt cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { evalStats } from "./recorded_runs.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", repeat: 2, home },
 *   { sandbox },
 * );
 * assert.equal(evalStats(home, run.id).overall.n, 2);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when there is no such run.
 */
export function evalStats(home: string, run: string): RunStats {
  const store = openStateStore(home);
  try {
    const record = requireRun(store, run);
    return runStats(store.runs.trialSummaries(record.id), runPromptCache(store, record));
  } finally {
    store.close();
  }
}

/**
 * Compares a candidate run with a base run of the same state folder, trial by trial: the flips
 * and the exact McNemar p-value, or what makes them incomparable.
 *
 * @example A run compared with itself flips nothing
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { compareEvals } from "./recorded_runs.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval({ paths: ["tasks/fix-slugify"], agent: "nop", home }, { sandbox });
 * const comparison = compareEvals(home, run.id, run.id);
 * assert(comparison.comparable && comparison.flips.length === 0);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when there is no such run.
 */
export function compareEvals(home: string, base: string, candidate: string): Comparison {
  const store = openStateStore(home);
  try {
    const [baseRun, candidateRun] = [base, candidate].map((id) => requireRun(store, id));
    return compareRuns(comparedRun(store, baseRun), comparedRun(store, candidateRun));
  } finally {
    store.close();
  }
}

/**
 * A run as the comparison sees it: its experiment's tasks and repeats, its trials' verdicts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { comparedRun } from "./recorded_runs.ts";
 * const store = openStore(":memory:");
 * const config = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0", attempt: 1, concurrency: 1, paths: ["tasks/a"],
 *   task_dirs: { a: "tasks/a" }, categories: { a: "bugfix" },
 * };
 * store.runs.create({ id: "r1", config, createdAt: 0 });
 * assert.deepEqual(comparedRun(store, store.runs.get("r1")!).tasks, ["a"]);
 * ```
 */
export function comparedRun(store: Store, run: RunRecord): ComparedRun {
  const config = runConfig(run);
  return {
    id: run.id,
    suite_digest: config.suite_digest,
    tasks: config.tasks,
    repeat: config.repeat,
    trials: store.runs.trialVerdicts(run.id),
  };
}

/**
 * Writes a run's `report.md`, `results.json` and `report.html` again, from the record, into
 * `runs/<id>/` (the HTML report to `html` when given); returns the results.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { runEval } from "../eval/run/run_eval.ts";
 * import { reportEval } from "./recorded_runs.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval({ paths: ["tasks/fix-slugify"], agent: "nop", home }, { sandbox });
 * await Deno.remove(`${home}/runs/${run.id}/report.md`);
 * assert.equal((await reportEval(home, run.id)).run.id, run.id);
 * await Deno.stat(`${home}/runs/${run.id}/report.md`);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when there is no such run.
 */
export async function reportEval(
  home: string,
  run: string,
  options: { html?: string } = {},
): Promise<Results> {
  const store = openStateStore(home);
  try {
    const record = requireRun(store, run);
    const runDir = join(home, "runs", record.id);
    return await writeRunReports(
      store,
      record,
      runDir,
      options.html ?? join(runDir, "report.html"),
    );
  } finally {
    store.close();
  }
}

/** The database of a state folder that must hold one. */
function openStateStore(home: string): Store {
  const path = join(home, "verdict.db");
  checkDatabaseFile(path);
  try {
    Deno.statSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(`no state database at ${path}: run an eval first, or give its folder`);
  }
  return openStore(path);
}

function requireRun(store: Store, id: string): RunRecord {
  const run = store.runs.get(id);
  if (run === undefined) throw new UsageError(`no run '${id}' in ${store.path}`);
  return run;
}
