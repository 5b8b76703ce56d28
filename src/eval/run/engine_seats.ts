/**
 * Where a run's trials run when it was given several Docker engines (`--engine NAME=SLOTS`): one
 * seat per trial at once, each bound to an engine, so a trial started on an engine stays there.
 *
 * @module
 */
import { InfrastructureError } from "../../core/errors.ts";
import type { DerivedImageSource, Sandbox } from "../../engine/sandbox.ts";
import type { Store } from "../../store/store.ts";
import type { TrialPlan, TrialStart } from "../trial/trial_plan.ts";
import { type ResumeContext, trialStartFrom } from "./resume_point.ts";

/**
 * One engine of a run given several.
 *
 * @example
 * ```ts
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import type { RunEngine } from "./engine_seats.ts";
 * const engine: RunEngine = { name: "build-2", slots: 4, sandbox: new MemorySandbox() };
 * ```
 */
export interface RunEngine {
  /** As the user named it: a Docker context or a `DOCKER_HOST` URL. */
  name: string;
  /** Trials it runs at once. */
  slots: number;
  /** The engine. */
  sandbox: Sandbox;
}

/** A worker's place: the engine its trials run on, and where that engine's images come from. */
export interface EngineSeat {
  /** The engine's name; undefined for a run's one engine. */
  engine?: string;
  /** The engine. */
  sandbox: Sandbox;
  /** Its derived images. */
  images: DerivedImageSource;
}

/**
 * The seats of a run: `concurrency` on its one engine, or each engine's slots, interleaved
 * (a, b, a, b, ...) so that a run of fewer trials than seats still uses every engine. Each engine
 * gets one source of derived images, labelled `labels`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { engineSeats } from "./engine_seats.ts";
 * const [a, b] = [new MemorySandbox(), new MemorySandbox()];
 * const engines = [{ name: "a", slots: 2, sandbox: a }, { name: "b", slots: 1, sandbox: b }];
 * const seats = engineSeats({ sandbox: a, engines }, 9, {});
 * assert.deepEqual(seats.map((seat) => seat.engine), ["a", "b", "a"]);
 * assert.equal(engineSeats({ sandbox: a }, 3, {}).length, 3);
 * ```
 */
export function engineSeats(
  deps: { sandbox: Sandbox; engines?: readonly RunEngine[] },
  concurrency: number,
  labels: Record<string, string>,
): EngineSeat[] {
  if (deps.engines === undefined) {
    const seat = { sandbox: deps.sandbox, images: deps.sandbox.derivedImages(labels) };
    return Array.from({ length: Math.max(1, concurrency) }, () => seat);
  }
  const perEngine = deps.engines.map(({ name, slots, sandbox }) => {
    const seat = { engine: name, sandbox, images: sandbox.derivedImages(labels) };
    return Array.from({ length: slots }, () => seat);
  });
  const widest = Math.max(...perEngine.map((seats) => seats.length));
  return Array.from({ length: widest }, (_, i) => perEngine.flatMap((seats) => seats[i] ?? []))
    .flat();
}

/**
 * Every engine of a run: its `engines`, or its one `sandbox`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { engineSandboxes } from "./engine_seats.ts";
 * const sandbox = new MemorySandbox();
 * assert.deepEqual(engineSandboxes({ sandbox }), [sandbox]);
 * ```
 */
export function engineSandboxes(
  deps: { sandbox: Sandbox; engines?: readonly RunEngine[] },
): Sandbox[] {
  return deps.engines === undefined ? [deps.sandbox] : deps.engines.map(({ sandbox }) => sandbox);
}

/**
 * Whether a seat's engine is gone: only asked of a run's engines (`--engine`), after one of its
 * trials ended in an infrastructure error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { engineLost } from "./engine_seats.ts";
 * const sandbox = new MemorySandbox();
 * assert.equal(await engineLost({ engine: "a", sandbox, images: sandbox.derivedImages({}) }), false);
 * ```
 */
export async function engineLost(seat: EngineSeat): Promise<boolean> {
  if (seat.engine === undefined) return false;
  return await seat.sandbox.ping().then(() => false, () => true);
}

/**
 * Where a trial whose engine was lost goes on, on another engine: from its last checkpoint, as
 * `resume` would pick it up (a loop agent re-driven through its record, its calls answered from
 * it; an installed agent, or the oracle, from its start), its log kept whole. Nothing of its lost
 * engine is looked for.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { openStore } from "../../store/store.ts";
 * import { movedStart } from "./engine_seats.ts";
 * const store = openStore(":memory:");
 * const plan = { run: "r", session: "s", repeat: 0, staged: {} as never };
 * const context = { sandbox: new MemorySandbox(), owner: "o", agent: nopAgent };
 * assert.equal((await movedStart(plan, store, context)).phase, "begin");
 * ```
 */
export async function movedStart(
  plan: TrialPlan,
  store: Store,
  context: ResumeContext,
): Promise<TrialStart> {
  return await trialStartFrom(plan, store.events.read(plan.session), [], context);
}

/**
 * Every engine of a run stopped answering: the run is left interrupted, for `resume` (exit 3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NoEngineLeft, noEngineLeft } from "./engine_seats.ts";
 * assert(noEngineLeft(1, new Set(["a"])) instanceof NoEngineLeft);
 * ```
 */
export class NoEngineLeft extends InfrastructureError {}

/**
 * Why a run stopped with trials left: every engine it was given stopped answering. The run stays
 * resumable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noEngineLeft } from "./engine_seats.ts";
 * assert.match(noEngineLeft(2, new Set(["a", "b"])).message, /a, b stopped answering/);
 * ```
 */
export function noEngineLeft(left: number, lost: ReadonlySet<string>): NoEngineLeft {
  return new NoEngineLeft(
    `no engine is left for the run's ${left} other trial${left === 1 ? "" : "s"}: ` +
      `${[...lost].join(", ")} stopped answering. Once one answers, 'verdict resume RUN' ` +
      `finishes the run`,
  );
}
