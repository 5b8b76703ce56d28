/**
 * The words of a trial, in one place below everything that runs one: which trial
 * ({@linkcode TrialPlan}), what it runs on ({@linkcode TrialDeps}), where it starts
 * ({@linkcode TrialStart}), and the kind of task it is ({@linkcode TaskKind}), the strategy a
 * staged task carries so that the phases never ask which kind they hold.
 *
 * @module
 */
import type { Agent, AgentOutcome } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import type { Rng } from "../../core/rng.ts";
import type { TarEntry, TarEntryHeader } from "../../engine/tar.ts";
import type {
  ContainerSpec,
  DerivedImageSource,
  Sandbox,
  SandboxContainer,
} from "../../engine/sandbox.ts";
import type { GatewayLedger } from "../../gateway/ledger.ts";
import type { GatewayHandler } from "../../gateway/serve_gateway.ts";
import type { Grade } from "../../grading/grade.ts";
import type { CrashPoint } from "../../model/model_spec.ts";
import type { BlobStore } from "../../store/blob_store.ts";
import type { CatalogueEvent } from "../../store/event_catalogue.ts";
import type { Store } from "../../store/store.ts";
import type { TreeEntry } from "../../task/file_tree.ts";
import type { Task } from "../../task/task.ts";
import type { ContainerSeal } from "../../workspace/container_seal.ts";
import type { SealedTree, Snapshot, SnapshotChange } from "../../workspace/snapshot.ts";

/** A task with its workspace ready to stage. */
export interface StagedTask {
  /** The task. */
  task: Task;
  /** Its kind: how its containers run, and how its end state is sealed and graded. */
  kind: TaskKind;
  /** The workspace, sealed: the initial snapshot every repeat starts from. */
  initial: SealedTree;
  /** The workspace as a tar stream rooted at `/` (the workdir folder and everything in it). */
  tar: Uint8Array;
  /**
   * Packs workspace entries (paths relative to the workdir, as `snapshotContents` gives them) for
   * the agent's container, rooted at `/` like `tar` (see `packWorkspace`).
   */
  workspaceTar(entries: readonly TarEntry[]): Uint8Array;
  /** The task's `tests/`, held out from the agent. */
  tests: TreeEntry[];
  /** What the grading container's image adds to the task's image (see `graderImageTar`). */
  graderTar: Uint8Array;
}

/** Refuses, by throwing, an entry past the task's limits while a workspace is copied out. */
export type Admit = (entry: TarEntryHeader) => void;

/** What grading a sealed end state takes, whatever the task's kind. */
export interface GradeRequest {
  /** The trial's task, staged. */
  staged: StagedTask;
  /** The blob store holding the snapshots' files. */
  blobs: BlobStore;
  /**
   * The end state, being sealed: a kind may start its graders' work before it is (their starts
   * are then off the trial's path), and must not give them anything of it until it is.
   */
  final: Promise<Snapshot>;
  /** How the agent ended. */
  outcome: AgentOutcome;
  /** The fresh grader. */
  grader: SandboxContainer;
  /** A second, separate grader for the canary, when the task has one. */
  canaryGrader?: SandboxContainer;
  /** How the run grades. */
  deps: Pick<TrialDeps, "passReward" | "waiveModelOnly" | "signal">;
  /** Whether the agent is an installed one (its loop-only requirements are waived). */
  installed: boolean;
}

/**
 * A kind of task: a Verdict task (its workspace staged into the task's image, its end state the
 * workdir) or a Harbor task (its own image, its end state what the container changed). Chosen
 * once, when the task is staged (`task_kind.ts`).
 */
export interface TaskKind {
  /** The kind's name, for messages. */
  readonly name: "verdict" | "harbor";
  /** What every container of the task's trials runs with, over the task's spec. */
  readonly containerSpec: Partial<ContainerSpec>;
  /** Where sealed paths are relative to: the workdir's parent's view, or `/`. */
  sealRoot(task: Task): string;
  /** The image a trial's agent container starts from. */
  agentImage(staged: StagedTask, images: DerivedImageSource, signal: AbortSignal): Promise<string>;
  /** The image a trial's graders start from: the task's with its tests in it. */
  graderImage(staged: StagedTask, images: DerivedImageSource, signal: AbortSignal): Promise<string>;
  /** A checkpoint of the workspace while the agent works. */
  checkpoint(staged: StagedTask, container: SandboxContainer, admit: Admit): Promise<SealedTree>;
  /** The end state, once the agent stopped: everything in the container is stopped first. */
  seal(staged: StagedTask, container: SandboxContainer, admit: Admit): Promise<ContainerSeal>;
  /** Puts a checkpoint back into a new agent container. */
  restore(
    staged: StagedTask,
    container: SandboxContainer,
    blobs: BlobStore,
    snapshot: Snapshot,
  ): Promise<void>;
  /** Grades a sealed end state. */
  grade(request: GradeRequest): Promise<Grade>;
}

/** Which trial to run. */
export interface TrialPlan {
  /** The run. */
  run: string;
  /** The session (one per trial). */
  session: string;
  /** The staged task. */
  staged: StagedTask;
  /** The repeat index. */
  repeat: number;
  /** The session of the attempt this one retries (`resume --retry-errors`); none at first. */
  retryOf?: string;
  /**
   * Where it went on from, when its engine was lost under it (a run's `--engine`s): that engine,
   * and why the trial stopped there.
   */
  moved?: { from: string; reason: string };
}

/** A named point where a crash can be injected; `grading` is the trial's own. */
export type CrashHook = (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;

/** What a trial needs from its run. */
export interface TrialDeps {
  /** The state database. */
  store: Store;
  /** The container engine. */
  sandbox: Sandbox;
  /** The engine's name, recorded when the run was given several (`--engine`). */
  engine?: string;
  /**
   * Whether that engine stopped answering: asked of a trial about to end without a pass, which
   * then moves ({@linkcode TrialMoved}) rather than taking a verdict its engine's loss made.
   */
  engineLost?: () => Promise<boolean>;
  /**
   * Where a trial's containers get their images: the agent's with the workspace already in it,
   * the grader's with the tests.
   */
  images: DerivedImageSource;
  /** The injected clock. */
  clock: Clock;
  /** The trial's seeded random stream. */
  rng: Rng;
  /** The agent. */
  agent: Agent;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
  /** The state folder's owner label value (`run_owner.ts`), put on every container. */
  owner: string;
  /** A Harbor task's reward at or above which its trial passes (default 1). */
  passReward?: number;
  /** Report requirements only a model can meet without failing on them (tasks check). */
  waiveModelOnly?: boolean;
  /** Fault injection (the scripted model's crash knob). */
  crash?: CrashHook;
  /**
   * Containers started ahead of their trials (`warm_containers.ts`): the run keeps them only for
   * a new trial of an agent that needs nothing set up around its container.
   */
  warm?: WarmSource;
  /**
   * Makes the trial's model gateway, for an installed agent (`--agent cmd:...`): required by
   * those, unused by Verdict's own agents.
   */
  gateway?: TrialGatewayFactory;
}

/** Containers started ahead of their trials (`warm_containers.ts`). */
export interface WarmSource {
  /**
   * The container started ahead for `session` in `role` (`agent`, `grader`, `canary`), once;
   * undefined when none was.
   */
  take(session: string, role: string): Promise<SandboxContainer> | undefined;
}

/** What a trial's gateway is made for. */
export interface GatewayTrial {
  /** The trial. */
  plan: TrialPlan;
  /** The dummy key the agent's container holds, which the gateway checks. */
  key: string;
  /** Appends events to the session's log (each exchange, before the agent sees the answer). */
  record(events: CatalogueEvent[]): void;
  /** Stores text in the blob store; returns its sha256. */
  storeBlob(text: string): string;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
  /** The trial's seeded random stream (a scripted model draws from it). */
  rng: Rng;
}

/** A trial's gateway: its HTTP handler, and the ledger of what its calls used. */
export interface TrialGateway {
  /** Answers the agent's calls. */
  handler: GatewayHandler;
  /** Counts the calls' tokens and cost, and the budget that stopped the agent, if one did. */
  ledger: GatewayLedger;
}

/**
 * Makes the HTTP handler of one trial's gateway (the eval supplies it: the backend `--model`
 * names, the recording and the budgets, around `gatewayHandler`).
 */
export type TrialGatewayFactory = (trial: GatewayTrial) => Promise<TrialGateway>;

/** Filters what a resumed agent records: events already in the log are not written again. */
export type RecordFilter = (
  append: (events: CatalogueEvent[]) => void,
) => (events: CatalogueEvent[]) => void;

/**
 * Where a trial starts: from the beginning, or, for an interrupted one, at the phase its log
 * reached, with what the log already holds. `trial_start.ts` turns it into the trial's line.
 */
export type TrialStart =
  | {
    /** A new trial: stage the workspace, then the whole line. */
    phase: "begin";
  }
  | {
    /** The agent had not stopped: it goes on, re-driven through its record first. */
    phase: "agent";
    /** The agent as resumed (answers from the record, then live). */
    agent: Agent;
    /** Leaves out what the log already holds. */
    record: RecordFilter;
    /** The trial's container if it survived, else null. */
    container: SandboxContainer | null;
    /** The workspace to restore into a new container. */
    restoreRoot: string;
    /** Agent time already used, in ms. */
    elapsedMs: number;
  }
  | {
    /** The agent had stopped: seal, then grade. */
    phase: "seal";
    /** How the agent ended. */
    outcome: AgentOutcome;
    /** The trial's container if it survived, else null. */
    container: SandboxContainer | null;
    /** The workspace to seal when the container is gone. */
    restoreRoot: string;
  }
  | {
    /** The end state was sealed: grade it. */
    phase: "grade";
    /** How the agent ended. */
    outcome: AgentOutcome;
    /** The sealed end state. */
    endRoot: string;
  };

/** The start of a trial that has not begun. */
export const FROM_THE_BEGINNING: TrialStart = { phase: "begin" };

/** The run was interrupted while this trial ran; the session stays unfinished. */
export class TrialInterrupted extends Error {
  /** Makes the error. */
  constructor() {
    super("the trial was interrupted");
    this.name = "TrialInterrupted";
  }
}

/**
 * The trial's engine stopped answering under it: the session stays unfinished, to go on from its
 * last checkpoint on an engine that is left.
 */
export class TrialMoved extends Error {
  /** Makes the error; `reason` is why the trial stopped on its engine. */
  constructor(readonly reason: string) {
    super(`the trial's engine was lost: ${reason}`);
    this.name = "TrialMoved";
  }
}

/** The sealed end state. */
export interface Sealed {
  /** Its snapshot. */
  final: Snapshot;
  /** How it differs from the staged workspace. */
  changes: SnapshotChange[];
}
