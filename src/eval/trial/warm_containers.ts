/**
 * Containers started ahead of their trials, so that a trial's critical path starts at a running
 * agent container (its exec channel up) and ends at a grader that was ready before the agent
 * stopped, instead of waiting for image builds and `docker run`s. Each container is made for one
 * trial, from that trial's own image, labelled with its session and role: nothing is shared
 * between trials. One never taken is removed when the pool ends (and, after a crash, by the run's
 * leftover sweep, which finds it by its labels).
 *
 * @module
 */
import type { SandboxContainer } from "../../engine/sandbox.ts";
import type { TrialPlan, WarmSource } from "./trial_plan.ts";

/** A trial's containers started ahead, by role (`agent`, `grader`, `canary`). */
export type WarmSet = Record<string, Promise<SandboxContainer>>;

/**
 * Containers started ahead, by session and role.
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
 *   const container = { id: plan.session, remove: () => Promise.resolve() } as never;
 *   return { agent: Promise.resolve(container), grader: Promise.resolve(container) };
 * });
 * warm.ahead(0); // the trial at 0 is taken now: the one after it starts
 * assert.deepEqual(started, ["s2"]);
 * assert.equal((await warm.take("s2", "agent"))?.id, "s2");
 * assert.equal(warm.take("s2", "agent"), undefined); // taken once
 * await warm.removeUntaken(); // removes s2's grader
 * ```
 */
export class WarmContainers implements WarmSource {
  readonly #plans: readonly TrialPlan[];
  readonly #depth: number;
  readonly #start: (plan: TrialPlan) => WarmSet;
  readonly #afterwards: () => Promise<void>;
  readonly #started = new Map<string, Promise<SandboxContainer>>();
  #next = 0;

  /**
   * @param plans The run's trials, in the order they are taken.
   * @param depth How many trials ahead to keep started (the run's concurrency).
   * @param start Starts the containers of a trial, by role.
   * @param afterwards Undoes what else was made ahead, once the untaken containers are removed.
   */
  constructor(
    plans: readonly TrialPlan[],
    depth: number,
    start: (plan: TrialPlan) => WarmSet,
    afterwards: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.#plans = plans;
    this.#depth = depth;
    this.#start = start;
    this.#afterwards = afterwards;
  }

  /** The trial at `index` is being taken: starts the containers of the `depth` after it. */
  ahead(index: number): void {
    this.#next = Math.max(this.#next, index + 1);
    while (this.#next <= index + this.#depth && this.#next < this.#plans.length) {
      const plan = this.#plans[this.#next++];
      for (const [role, starting] of Object.entries(this.#start(plan))) {
        starting.catch(() => undefined); // the trial that takes it sees the failure
        this.#started.set(key(plan.session, role), starting);
      }
    }
  }

  /** The container started ahead for `session` in `role`, once; undefined when none was. */
  take(session: string, role: string): Promise<SandboxContainer> | undefined {
    const starting = this.#started.get(key(session, role));
    this.#started.delete(key(session, role));
    return starting;
  }

  /** Removes every container started ahead and never taken, then runs `afterwards`. */
  async removeUntaken(): Promise<void> {
    const left = [...this.#started.values()];
    this.#started.clear();
    await Promise.all(left.map(async (starting) => {
      const container = await starting.catch(() => undefined);
      await container?.remove().catch(() => undefined);
    }));
    await this.#afterwards().catch(() => undefined);
  }
}

function key(session: string, role: string): string {
  return `${session}\n${role}`;
}
