/**
 * Where a run's trials run when it was given several Docker engines (`--engine NAME=SLOTS`): one
 * seat per trial at once, each bound to an engine, so a trial started on an engine stays there.
 *
 * @module
 */
import { InfrastructureError } from "../../core/errors.ts";
import type { DerivedImageSource, Sandbox } from "../../engine/sandbox.ts";
import type { Store } from "../../store/store.ts";
import { sessionId } from "../setup/run_identity.ts";
import type { TrialPlan } from "../trial/trial_plan.ts";

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
 * A trial that ended on a lost engine, moved: a new attempt of it, with its own session (as
 * `resume --retry-errors` makes), recorded now and run on another engine. The ended attempt stays
 * in the record with its engine and why it ended; only the last attempt counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { movedPlan } from "./engine_seats.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * const plan = { run: "r", session: "s", repeat: 0, staged: {} as never };
 * const moved = movedPlan(store, plan);
 * assert.equal(moved.retryOf, "s");
 * assert.equal(store.runs.session(moved.session)?.retry, 1);
 * ```
 */
export function movedPlan(store: Store, plan: TrialPlan): TrialPlan {
  const ended = store.runs.session(plan.session)!;
  const retry = ended.retry + 1;
  const session = sessionId(plan.run, ended.task, ended.repeat, retry);
  store.runs.createSession({
    id: session,
    run: plan.run,
    task: ended.task,
    repeat: ended.repeat,
    retry,
  });
  return { ...plan, session, retryOf: plan.session };
}

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
export function noEngineLeft(left: number, lost: ReadonlySet<string>): InfrastructureError {
  return new InfrastructureError(
    `no engine is left for the run's ${left} other trial${left === 1 ? "" : "s"}: ` +
      `${[...lost].join(", ")} stopped answering. Once one answers, 'verdict resume RUN' ` +
      `finishes the run`,
  );
}
