/**
 * `verdict resume RUN`: finish an interrupted run. Finished trials are kept; every other trial
 * continues from its last checkpoint: in its container if that survived, otherwise in a new one
 * restored from the latest workspace snapshot. The agent is re-driven through its record (the
 * same requests must come out, or the resume stops), then goes on live. A tool call that was
 * started but never recorded a result is run again only if its tool is idempotent; otherwise the
 * model is told its outcome is unknown.
 *
 * @module
 */
import { join } from "node:path";
import type { Agent } from "../../agent/agent.ts";
import { installedAgent } from "../../agent/cmd_agent.ts";
import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { loadSuite, selectTasks } from "../../task/load_suite.ts";
import type { Task } from "../../task/task.ts";
import { agentKind } from "../setup/agent_registry.ts";
import type { LoopSetup } from "../setup/loop_choices.ts";
import {
  type ClaimedRun,
  driveRun,
  type EvalOutcome,
  type PreparedRun,
  type RunDeps,
} from "./run_lifecycle.ts";
import type { LabelledContainer, Sandbox } from "../../engine/sandbox.ts";
import { type ResumeContext, trialStartFrom } from "./resume_point.ts";
import { type RunConfig, runConfig, sessionId } from "../setup/run_identity.ts";
import { tryLockRun } from "./run_lock.ts";
import { OWNER_LABEL } from "../trial/run_owner.ts";
import { stageTask } from "../trial/staged_task.ts";
import { readyHarborImages } from "../setup/harbor_images.ts";
import type { TrialPlan } from "../trial/trial_plan.ts";

/** What the user may pass to `resume`; anything given must match the record. */
export interface ResumeChoices {
  /** `--model`. */
  model?: string;
  /** `--policy`. */
  policy?: string;
  /** `--retry-errors`: the trials that ended in an infrastructure error run again. */
  retryErrors?: boolean;
}

/** What `resume` needs besides the run. */
export interface ResumeDeps
  extends Omit<RunDeps, "agent" | "waiveModelOnly" | "passReward" | "crash"> {
  /** The state database, open. */
  store: Store;
  /** The state directory. */
  home: string;
  /** Builds the loop agent as recorded (model spec and settings from the run's configuration). */
  loopSetup(config: RunConfig, tasks: Task[]): Promise<LoopSetup>;
}

/**
 * Resumes a run, through the same lifecycle as `eval`: its unfinished trials are its plans, and
 * each picks up where it was interrupted.
 *
 * @example
 * ```ts ignore
 * import { resumeRun } from "./resume.ts";
 * const outcome = await resumeRun(run, { model: "scripted" }, deps);
 * ```
 * @throws {UsageError} when another process holds the run, or the model, policy, tools, harness
 * version or tasks differ from the record (exit 2), naming what differs.
 * @throws {CorruptionError} when the run's configuration does not parse (exit 1).
 */
export function resumeRun(
  run: RunRecord,
  choices: ResumeChoices,
  deps: ResumeDeps,
): Promise<EvalOutcome> {
  const config = runConfig(run);
  return driveRun({
    home: deps.home,
    store: deps.store,
    claim: (runsDir) => claimHeldRun(run.id, runsDir),
    prepare: ({ owner }) => prepareResume(run, config, choices, deps, owner),
  }, deps);
}

// The run's folder, locked for this process: refused while another holds it.
function claimHeldRun(id: string, runsDir: string): Promise<ClaimedRun> {
  const runDir = join(runsDir, id);
  Deno.mkdirSync(runDir, { recursive: true });
  const lock = tryLockRun(runDir);
  if (lock === undefined) {
    throw new UsageError(
      `run ${id} is being worked on by another process; wait for it, or stop it first`,
    );
  }
  return Promise.resolve({ id, lock });
}

// The unfinished trials, the agent as the run recorded it, and where each trial picks up.
async function prepareResume(
  run: RunRecord,
  config: RunConfig,
  choices: ResumeChoices,
  deps: ResumeDeps,
  owner: string,
): Promise<PreparedRun> {
  const tasks = await recordedTasks(run.id, config, choices);
  // The agent as the run recorded it: the loop rebuilt from its model and settings.
  const built = await agentKind(config.agent, { agentFiles: config.agent_files, home: deps.home })
    .build(() => deps.loopSetup(config, tasks));
  if (built.loop) requireRecordedSettings(run.id, config, built.loop);
  await requireRecordedAgentFiles(run.id, config, built.agent);
  if (choices.retryErrors) recordRetries(run.id, deps.store);
  const plans = await unfinishedPlans(run.id, tasks, config, deps);
  const leftovers = await sweepFinished(run.id, owner, plans, deps.sandbox);
  const context: ResumeContext = {
    sandbox: deps.sandbox,
    owner,
    agent: built.agent,
    follow: built.loop?.following,
  };
  return {
    plans,
    pool: { seed: config.seed, concurrency: config.concurrency },
    // Grade as the run was graded before it was interrupted.
    deps: {
      agent: built.agent,
      crash: built.crash,
      waiveModelOnly: config.waive_model_only,
      passReward: config.pass_reward,
      gateway: built.gateway,
    },
    cleanedUp: [],
    resumeFor: (plan) =>
      trialStartFrom(
        plan,
        deps.store.events.read(plan.session),
        leftovers.filter((container) => container.labels["verdict.session"] === plan.session),
        context,
      ),
  };
}

// The trials without a verdict, their tasks staged again.
async function unfinishedPlans(
  run: string,
  tasks: Task[],
  config: RunConfig,
  deps: ResumeDeps,
): Promise<TrialPlan[]> {
  const ready = (await readyHarborImages(tasks, deps.sandbox)).map(({ task }) => task);
  const staged = new Map(
    (await Promise.all(ready.map((task) => stageTask(task, config.settings?.policy))))
      .map((entry) => [entry.task.id, entry]),
  );
  return deps.store.runs.sessions(run)
    .filter((session) => session.status !== "finished")
    .map((session) => ({
      run,
      session: session.id,
      staged: staged.get(session.task)!,
      repeat: session.repeat,
      ...(session.retry === 0
        ? {}
        : { retryOf: sessionId(run, session.task, session.repeat, session.retry - 1) }),
    }));
}

/**
 * A new attempt, with a session of its own, for each trial whose last attempt ended in an
 * infrastructure error: the earlier attempts stay in the record, and only the last one counts.
 */
function recordRetries(run: string, store: Store): void {
  store.transaction(() => {
    for (const session of store.runs.sessions(run)) {
      if (session.result?.bucket !== "infrastructure_error") continue;
      const retry = session.retry + 1;
      store.runs.createSession({
        id: sessionId(run, session.task, session.repeat, retry),
        run,
        task: session.task,
        repeat: session.repeat,
        retry,
      });
    }
  });
}

/**
 * What the dead process left, in one inventory: containers by session. Only an unfinished
 * trial's may be of use; the rest (image builders, finished trials') go at once.
 */
async function sweepFinished(
  run: string,
  owner: string,
  plans: TrialPlan[],
  sandbox: Sandbox,
): Promise<LabelledContainer[]> {
  const leftovers = await sandbox.findLabelled(
    [`verdict.run=${run}`, `${OWNER_LABEL}=${owner}`],
    ["verdict.session", "verdict.role"],
  );
  const resumed = new Set(plans.map((plan) => plan.session));
  await sandbox.removeContainers(
    leftovers.filter((container) => !resumed.has(container.labels["verdict.session"]))
      .map(({ id }) => id),
  );
  return leftovers;
}

/** The run's tasks, loaded again: refused when the record and the choices or the tasks differ. */
async function recordedTasks(
  run: string,
  config: RunConfig,
  choices: ResumeChoices,
): Promise<Task[]> {
  const differences = differencesFromRecord(config, choices);
  const suite = await loadSuite(config.paths);
  if (suite.digest !== config.suite_digest) {
    differences.push(
      `the tasks at ${config.paths.join(", ")} changed since the run started (suite digest ${
        suite.digest.slice(0, 12)
      }, recorded ${config.suite_digest.slice(0, 12)})`,
    );
  }
  if (differences.length > 0) {
    throw new UsageError(`cannot resume run ${run}: ${differences.join("; ")}`);
  }
  return selectTasks(suite, config.tasks);
}

/** An installed agent's own files or kit must be the ones the run started with. */
async function requireRecordedAgentFiles(
  run: string,
  config: RunConfig,
  agent: Agent,
): Promise<void> {
  if (config.agent_digest === undefined) return; // recorded before runs said
  const digest = await installedAgent(agent)?.digest();
  if (digest === config.agent_digest) return;
  throw new UsageError(
    `cannot resume run ${run}: the agent's ${
      config.agent_files ? `files at ${config.agent_files}` : "kit"
    } changed since the run started (sha256 ${(digest ?? "none").slice(0, 12)}, recorded ` +
      `${config.agent_digest.slice(0, 12)}); put them back as they were, or start a new run`,
  );
}

/** The loop agent's settings must be the recorded ones (tools, prices, base URL, ...). */
function requireRecordedSettings(run: string, config: RunConfig, setup: LoopSetup): void {
  const recorded: Record<string, unknown> = { ...config.settings };
  const now: Record<string, unknown> = { ...setup.settings };
  const changed = Object.keys({ ...recorded, ...now })
    .filter((key) => JSON.stringify(recorded[key] ?? null) !== JSON.stringify(now[key] ?? null));
  if (changed.length > 0) {
    throw new UsageError(
      `cannot resume run ${run}: ${
        changed.map((key) =>
          `${key} is ${JSON.stringify(now[key] ?? null)}, the run had ${
            JSON.stringify(recorded[key] ?? null)
          }`
        ).join("; ")
      }`,
    );
  }
}

function differencesFromRecord(config: RunConfig, choices: ResumeChoices): string[] {
  const differences: string[] = [];
  if (config.harness_version !== VERSION) {
    differences.push(`the run was made by verdict ${config.harness_version}, this is ${VERSION}`);
  }
  if (choices.model !== undefined && choices.model !== config.model) {
    differences.push(`the model is ${choices.model}, the run used ${config.model ?? "none"}`);
  }
  const policy = config.settings?.policy ?? "default";
  if (choices.policy !== undefined && choices.policy !== policy) {
    differences.push(`the policy is ${choices.policy}, the run used ${policy}`);
  }
  return differences;
}
