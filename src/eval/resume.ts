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
import type { Agent } from "../agent/agent.ts";
import { nopAgent } from "../agent/nop.ts";
import { oracleAgent } from "../agent/oracle.ts";
import { UsageError } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import {
  AGENT_USER,
  Container,
  findLabelled,
  type LabelledContainer,
  removeContainers,
} from "../sandbox/container.ts";
import type { StoredEvent } from "../store/event_log.ts";
import type { RunRecord } from "../store/run_table.ts";
import type { Store } from "../store/store.ts";
import { loadSuite, selectTasks } from "../task/load_suite.ts";
import type { Task } from "../task/task.ts";
import type { LoopSetup } from "./loop_setup.ts";
import { type EvalDeps, type EvalOutcome, finishRun, runPool } from "./run_eval.ts";
import { tryLockRun } from "./run_lock.ts";
import { OWNER_LABEL, stateOwner } from "./run_owner.ts";
import { agentEvents, sessionDriver } from "./session_driver.ts";
import { stageTask } from "./staged_task.ts";
import { outcomeFromPayload, type ResumePoint, type TrialPlan } from "./trial.ts";

/** What the user may pass to `resume`; anything given must match the record. */
export interface ResumeChoices {
  /** `--model`. */
  model?: string;
  /** `--policy`. */
  policy?: string;
}

/** What `resume` needs besides the run. */
export interface ResumeDeps extends Omit<EvalDeps, "agent" | "store" | "waiveModelOnly"> {
  /** The state database, open. */
  store: Store;
  /** The state directory. */
  home: string;
  /** Builds the loop agent as recorded (model spec and settings from the run's configuration). */
  loopSetup(config: RunConfig, tasks: Task[]): Promise<LoopSetup>;
}

/** The parts of a run's configuration resume reads. */
export interface RunConfig {
  /** The agent. */
  agent: string;
  /** The model spec. */
  model: string | null;
  /** Base URL, policy, prices, tools. */
  settings: Record<string, unknown> | null;
  /** The seed. */
  seed: number;
  /** Repeats. */
  repeat: number;
  /** Trials at once. */
  concurrency: number;
  /** The paths the suite came from. */
  paths: string[];
  /** The selected task ids. */
  tasks: string[];
  /** The suite's digest. */
  suite_digest: string;
  /** The harness version that made the run. */
  harness_version: string;
  /** Whether model-only requirements were waived (`tasks check`); absent in older records. */
  waive_model_only?: boolean;
}

/**
 * Resumes a run.
 *
 * @throws {UsageError} when another process holds the run, or the model, policy, tools, harness
 * version or tasks differ from the record (exit 2), naming what differs.
 */
export async function resumeRun(
  run: RunRecord,
  choices: ResumeChoices,
  deps: ResumeDeps,
): Promise<EvalOutcome> {
  const { store } = deps;
  const config = run.config as unknown as RunConfig;
  const runDir = join(deps.home, "runs", run.id);
  await Deno.mkdir(runDir, { recursive: true });
  const owner = stateOwner(deps.home);
  const lock = tryLockRun(runDir);
  if (lock === undefined) {
    throw new UsageError(
      `run ${run.id} is being worked on by another process; wait for it, or stop it first`,
    );
  }
  try {
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
      throw new UsageError(`cannot resume run ${run.id}: ${differences.join("; ")}`);
    }
    const tasks = selectTasks(suite, config.tasks);
    const setup = config.agent === "loop" ? await deps.loopSetup(config, tasks) : undefined;
    if (setup) {
      const changed = Object.keys({ ...config.settings, ...setup.settings })
        .filter((key) =>
          JSON.stringify(config.settings?.[key] ?? null) !==
            JSON.stringify(setup.settings[key] ?? null)
        );
      if (changed.length > 0) {
        throw new UsageError(
          `cannot resume run ${run.id}: ${
            changed.map((key) =>
              `${key} is ${JSON.stringify(setup.settings[key] ?? null)}, the run had ${
                JSON.stringify(config.settings?.[key] ?? null)
              }`
            ).join("; ")
          }`,
        );
      }
    }
    const agent: Agent = setup?.agent ??
      (config.agent.startsWith("oracle") ? oracleAgent : nopAgent);
    const staged = new Map(
      (await Promise.all(
        tasks.map((task) => stageTask(task, config.settings?.policy as string | undefined)),
      )).map((entry) => [entry.task.id, entry]),
    );
    const plans: TrialPlan[] = store.runs.sessions(run.id)
      .filter((session) => session.status !== "finished")
      .map((session) => ({
        run: run.id,
        session: session.id,
        staged: staged.get(session.task)!,
        repeat: session.repeat,
      }));
    store.runs.setStatus(run.id, "running");
    deps.progress.runStarted(store.runs.get(run.id)!, plans.length, []);
    // What the dead process left, in one inventory: containers by session. Only an unfinished
    // trial's may be of use; the rest (image builders, finished trials') go at once.
    const leftovers = await findLabelled(deps.docker, [
      `verdict.run=${run.id}`,
      `${OWNER_LABEL}=${owner}`,
    ], [
      "verdict.session",
      "verdict.role",
    ]);
    const resumed = new Set(plans.map((plan) => plan.session));
    await removeContainers(
      deps.docker,
      ids(leftovers.filter((container) => !resumed.has(container.labels["verdict.session"]))),
    );
    const resumeFor = async (plan: TrialPlan): Promise<ResumePoint | undefined> => {
      const events = store.events.read(plan.session);
      const left = leftovers.filter((container) =>
        container.labels["verdict.session"] === plan.session
      );
      if (events.length === 0) {
        await removeContainers(deps.docker, ids(left));
        return undefined; // never started: run it from the beginning
      }
      return await resumePoint(plan, events, { ...deps, owner }, setup, agent, left);
    };
    const interrupted = await runPool(
      plans,
      { seed: config.seed, concurrency: config.concurrency, owner },
      {
        ...deps,
        agent,
        crash: setup?.crash,
        store,
        // Grade as the run was graded before it was interrupted.
        waiveModelOnly: config.waive_model_only === true,
      },
      store,
      resumeFor,
    );
    return await finishRun({ id: run.id, owner, runDir, interrupted }, deps, store);
  } finally {
    lock.release();
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
  const policy = (config.settings?.policy as string | undefined) ?? "default";
  if (choices.policy !== undefined && choices.policy !== policy) {
    differences.push(`the policy is ${choices.policy}, the run used ${policy}`);
  }
  return differences;
}

async function resumePoint(
  plan: TrialPlan,
  events: StoredEvent[],
  deps: ResumeDeps & { owner: string },
  setup: LoopSetup | undefined,
  agent: Agent,
  leftovers: LabelledContainer[],
): Promise<ResumePoint> {
  const last = (kind: string) => events.findLast((event) => event.kind === kind);
  const stopped = last("agent.stopped");
  const sealed = last("end_state.sealed");
  const staged = last("workspace.staged");
  const snapshot = agentEvents(events).findLast((event) => event.kind === "workspace.snapshot");
  const restoreRoot =
    (snapshot?.payload.root ?? staged?.payload.root ?? plan.staged.initial.root) as string;
  const role = (name: string) =>
    leftovers.filter((container) => container.labels["verdict.role"] === name);
  // The trial was interrupted and is resumed, whichever phase it was in.
  const outcome = stopped ? outcomeFromPayload(stopped.payload) : undefined;
  if (outcome) outcome.counters = { ...outcome.counters, resumed: true };
  // A grader left by the dead process is never reused: grading always gets a fresh container.
  // Once the end state is sealed, the agent's container has no use either.
  const sealedAlready = outcome !== undefined && sealed !== undefined;
  await removeContainers(
    deps.docker,
    ids([...role("grader"), ...(sealedAlready ? role("agent") : [])]),
  );
  if (outcome && sealed) {
    return { phase: "grade", outcome, endRoot: sealed.payload.root as string };
  }
  const container = await survivingAgentContainer(plan, deps, role("agent"), !stopped);
  if (outcome) return { phase: "seal", outcome, container, restoreRoot };
  if (setup === undefined) {
    // The oracle and nop agents have no record to follow: they start over on the staged workspace.
    await container?.remove();
    return {
      phase: "agent",
      agent,
      record: (append) => append,
      container: null,
      restoreRoot: plan.staged.initial.root,
      elapsedMs: 0,
    };
  }
  const driver = sessionDriver(events);
  const times = driver.recorded.map((event) => event.at).filter((at): at is number =>
    typeof at === "number"
  );
  return {
    phase: "agent",
    agent: setup.following(driver),
    record: (append) => driver.record(append),
    container,
    restoreRoot,
    elapsedMs: times.length > 1 ? times[times.length - 1] - times[0] : 0,
  };
}

/** The trial's agent container, if it survived: reused as it is; the others are removed. */
async function survivingAgentContainer(
  plan: TrialPlan,
  deps: ResumeDeps & { owner: string },
  found: LabelledContainer[],
  running: boolean,
): Promise<Container | null> {
  // Running: the agent was still at work. Exited: killed for its seal, which it still holds.
  const usable = running ? ["running"] : ["running", "exited"];
  const alive = found.find((container) => usable.includes(container.state));
  await removeContainers(deps.docker, ids(found.filter((container) => container !== alive)));
  if (alive === undefined) return null;
  const manifest = plan.staged.task.manifest;
  const container = new Container(deps.docker, alive.id, {
    image: manifest.image,
    workdir: manifest.workdir,
    network: manifest.network,
    labels: {
      "verdict.run": plan.run,
      [OWNER_LABEL]: deps.owner,
      "verdict.session": plan.session,
      "verdict.role": "agent",
    },
    user: AGENT_USER,
  });
  return container;
}

function ids(containers: readonly LabelledContainer[]): string[] {
  return containers.map(({ id }) => id);
}
