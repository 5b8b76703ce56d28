/**
 * A run's lifecycle, one for `eval` and `resume`: the run folder taken and locked, the trials
 * run by a pool at most `concurrency` at once (each in its own containers, every one carrying the
 * state folder's owner label), and the outcome: an interrupted run's containers removed, its
 * status recorded, its reports written from the record. What differs (how the run is claimed,
 * how its plans are made, where an interrupted trial picks up) is the caller's.
 *
 * @module
 */
import { engineSandboxes, NoEngineLeft } from "./engine_seats.ts";
import type { SigningKey } from "../../core/ed25519.ts";
import { signRun } from "./run_signature.ts";
import { join } from "node:path";
import type { Results } from "../../report/results.ts";
import { writeRunReports } from "../../report/run_reports.ts";
import type { Sandbox } from "../../engine/sandbox.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { runConfig } from "../setup/run_identity.ts";
import type { RunLock } from "./run_lock.ts";
import { OWNER_LABEL, stateOwner } from "../trial/run_owner.ts";
import type { TrialPlan, TrialStart } from "../trial/trial_plan.ts";
import { type PoolDeps, type PoolSettings, type Progress, runPool } from "./run_pool.ts";

export type { Progress };

/**
 * How a run ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { runEval } from "./run_eval.ts";
 * import type { EvalOutcome } from "./run_lifecycle.ts";
 * const home = await Deno.makeTempDir();
 * const outcome: EvalOutcome = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", home },
 *   { sandbox: new MemorySandbox() },
 * );
 * assert(!outcome.interrupted && outcome.run.status === "finished");
 * assert.equal(outcome.runDir, `${home}/runs/${outcome.run.id}`);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export interface EvalOutcome {
  /** The run, with its final status. */
  run: RunRecord;
  /** Its results (also in `runs/<id>/results.json`). */
  results: Results;
  /** Whether an interrupt stopped it. */
  interrupted: boolean;
  /** What stopped it: the interrupt signal's reason; undefined when it was not interrupted. */
  interruption?: unknown;
  /** The run folder. */
  runDir: string;
}

/** What a run needs from its caller: what its trials need, and how it is signed. */
export interface RunDeps extends PoolDeps {
  /** Signs the run when it ends; unsigned without. */
  signingKey?: SigningKey;
}

/** A run's folder, taken and locked for this process. */
export interface ClaimedRun {
  /** The run id. */
  id: string;
  /** The lock of `runs/<id>`, released when the run ends. */
  lock: RunLock;
}

/** A claimed run's trials, ready to go. */
export interface PreparedRun {
  /** The trials to run (a resumed run's unfinished ones). */
  plans: TrialPlan[];
  /** Trials at once and the seed. */
  pool: Omit<PoolSettings, "owner">;
  /** The agent, and how grading treats model-only requirements. */
  deps: Pick<RunDeps, "agent" | "waiveModelOnly" | "passReward" | "crash" | "gateway" | "follow">;
  /** The runs whose leftover containers were removed before this one started. */
  cleanedUp: string[];
  /** Where an interrupted trial picks up (resume). */
  resumeFor?: (plan: TrialPlan) => Promise<TrialStart>;
}

/** How one run is driven: the steps where `eval` and `resume` differ. */
export interface RunSteps {
  /** The state directory. */
  home: string;
  /** The state database, open. */
  store: Store;
  /** Takes the run's folder, `runs/<id>`: made and locked. */
  claim(runsDir: string): Promise<ClaimedRun>;
  /** Makes (and for a new run, records) its trials, with the run's folder locked. */
  prepare(run: { id: string; owner: string }): Promise<PreparedRun>;
}

/**
 * Drives a run from its claim to its outcome: the run folder taken and locked, the trials
 * prepared, the status `running`, progress told, the trials pooled, and the run ended
 * (containers of an interrupted run removed, status, reports). The lock is released however it
 * ends.
 *
 * @example
 * ```ts ignore
 * import { driveRun } from "./run_lifecycle.ts";
 * const outcome = await driveRun({ home, store, claim, prepare }, deps);
 * ```
 */
export async function driveRun(
  steps: RunSteps,
  deps: Omit<RunDeps, "agent" | "waiveModelOnly" | "passReward" | "crash" | "gateway">,
): Promise<EvalOutcome> {
  const { store } = steps;
  const runsDir = join(steps.home, "runs");
  await Deno.mkdir(runsDir, { recursive: true });
  const owner = stateOwner(steps.home);
  const { id, lock } = await steps.claim(runsDir);
  try {
    const prepared = await steps.prepare({ id, owner });
    store.runs.setStatus(id, "running");
    const run = store.runs.get(id)!;
    deps.progress.runStarted(run, runConfig(run), prepared.plans.length, prepared.cleanedUp);
    const interrupted = await runPool(
      prepared.plans,
      { ...prepared.pool, owner },
      { ...deps, ...prepared.deps },
      store,
      prepared.resumeFor,
    );
    return await finishRun({ id, owner, runDir: join(runsDir, id), interrupted }, deps, store);
  } catch (error) {
    // Recorded as interrupted (its reports written, signed), then told as the error it is.
    if (error instanceof NoEngineLeft) {
      await finishRun({ id, owner, runDir: join(runsDir, id), interrupted: true }, deps, store);
    }
    throw error;
  } finally {
    lock.release();
  }
}

// Ends a run: an interrupted run's containers are removed, its status recorded, and its reports
// written from the record.
async function finishRun(
  ended: { id: string; owner: string; runDir: string; interrupted: boolean },
  deps: Pick<RunDeps, "sandbox" | "engines" | "signal" | "signingKey">,
  store: Store,
): Promise<EvalOutcome> {
  const { id, owner, runDir, interrupted } = ended;
  if (interrupted) {
    await Promise.all(
      engineSandboxes(deps).map((sandbox) =>
        removeRunContainers(sandbox, id, owner).catch(() => undefined)
      ),
    );
  }
  store.runs.setStatus(id, interrupted ? "interrupted" : "finished");
  const run = store.runs.get(id)!;
  // Signed again as it now stands; a run changed by a writer without a key is unsigned, never
  // left with a signature over what it was (which `verify` would take for forgery).
  if (deps.signingKey) await signRun(store, run, deps.signingKey);
  else store.signatures.remove(id);
  const results = await writeRunReports(store, run, runDir);
  return {
    run,
    results,
    interrupted,
    interruption: interrupted ? deps.signal.reason : undefined,
    runDir,
  };
}

/**
 * Removes the containers of one run of one state folder: with the run's lock held, they are this
 * process's (or ones a killed holder of the run left).
 *
 * @example
 * ```ts
 * import { Docker } from "../../engine/docker.ts";
 * import { DockerSandbox } from "../../engine/docker_sandbox.ts";
 * import { removeRunContainers } from "./run_lifecycle.ts";
 * const sandbox = new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" }));
 * await removeRunContainers(sandbox, "abc123", "0123456789abcdef");
 * ```
 */
export async function removeRunContainers(
  sandbox: Sandbox,
  run: string,
  owner: string,
): Promise<void> {
  // Listed again after each removal: a start that was under way when the run stopped may only
  // now show its container.
  for (let round = 0; round < 3; round++) {
    const found = await sandbox.findLabelled([`verdict.run=${run}`, `${OWNER_LABEL}=${owner}`]);
    if (found.length === 0) return;
    await sandbox.removeContainers(found.map(({ id }) => id));
  }
}
