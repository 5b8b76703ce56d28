/**
 * Agent containers started ahead of their trials, so that a trial's critical path starts at a
 * running container (its exec channel up) instead of waiting for an image build and a
 * `docker run`. Each container is made for one trial, from that trial's own image, labelled with
 * its session: nothing is shared between trials. One never taken is removed when the pool ends
 * (and, after a crash, by the run's leftover sweep, which finds it by its labels).
 *
 * @module
 */
import type { SandboxContainer } from "../../engine/sandbox.ts";
import type { TrialPlan, WarmSource } from "./trial_plan.ts";

/**
 * Containers started ahead, by session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WarmContainers } from "./warm_containers.ts";
 * const plans = [{ session: "s1" }, { session: "s2" }] as unknown as ConstructorParameters<
 *   typeof WarmContainers
 * >[0];
 * const started: string[] = [];
 * const warm = new WarmContainers(plans, 1, (plan) => {
 *   started.push(plan.session);
 *   return Promise.resolve({ id: plan.session, remove: () => Promise.resolve() } as never);
 * });
 * warm.ahead(0); // the trial at 0 is taken now: the one after it starts
 * assert.deepEqual(started, ["s2"]);
 * assert.equal((await warm.take("s2"))?.id, "s2");
 * assert.equal(warm.take("s2"), undefined); // taken once
 * await warm.removeUntaken();
 * ```
 */
export class WarmContainers implements WarmSource {
  readonly #plans: readonly TrialPlan[];
  readonly #depth: number;
  readonly #start: (plan: TrialPlan) => Promise<SandboxContainer>;
  readonly #started = new Map<string, Promise<SandboxContainer>>();
  #next = 0;

  /**
   * @param plans The run's trials, in the order they are taken.
   * @param depth How many trials ahead to keep started (the run's concurrency).
   * @param start Starts the agent container of a trial.
   */
  constructor(
    plans: readonly TrialPlan[],
    depth: number,
    start: (plan: TrialPlan) => Promise<SandboxContainer>,
  ) {
    this.#plans = plans;
    this.#depth = depth;
    this.#start = start;
  }

  /** The trial at `index` is being taken: starts the containers of the `depth` after it. */
  ahead(index: number): void {
    this.#next = Math.max(this.#next, index + 1);
    while (this.#next <= index + this.#depth && this.#next < this.#plans.length) {
      const plan = this.#plans[this.#next++];
      const starting = this.#start(plan);
      starting.catch(() => undefined); // the trial that takes it sees the failure
      this.#started.set(plan.session, starting);
    }
  }

  /** The container started ahead for `session`, once; undefined when none was. */
  take(session: string): Promise<SandboxContainer> | undefined {
    const starting = this.#started.get(session);
    this.#started.delete(session);
    return starting;
  }

  /** Removes every container started ahead and never taken. */
  async removeUntaken(): Promise<void> {
    const left = [...this.#started.values()];
    this.#started.clear();
    await Promise.all(left.map(async (starting) => {
      const container = await starting.catch(() => undefined);
      await container?.remove().catch(() => undefined);
    }));
  }
}
