/**
 * The trials of a run's pool, taken in order by its workers. A trial whose engine was lost comes
 * back to the end, so a worker with nothing to take waits while trials are under way: one of
 * them may yet come back for it.
 *
 * @module
 */
import type { TrialPlan } from "../trial/trial_plan.ts";

/** A trial taken, and its place in the queue. */
export interface TakenTrial {
  /** The trial. */
  plan: TrialPlan;
  /** Its place (the first trials' places are their places in the run's list). */
  index: number;
}

/** The queue of a run's trials. */
export class TrialQueue {
  readonly #plans: TrialPlan[];
  #next = 0;
  #running = 0;
  #waiting: (() => void)[] = [];

  /** A queue of `plans`, in their order. */
  constructor(plans: readonly TrialPlan[]) {
    this.#plans = [...plans];
  }

  /** How many trials are not taken yet. */
  get left(): number {
    return this.#plans.length - this.#next;
  }

  /**
   * The next trial, once there is one; undefined once none is left or under way, or once `stop`
   * says so (asked again each time the taker wakes).
   */
  async take(stop: () => boolean): Promise<TakenTrial | undefined> {
    while (!stop()) {
      if (this.#next < this.#plans.length) {
        this.#running++;
        const index = this.#next++;
        return { plan: this.#plans[index], index };
      }
      if (this.#running === 0) return undefined;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    return undefined;
  }

  /** A taken trial is over; `again` goes back to the end, for another worker to take. */
  done(again?: TrialPlan): void {
    this.#running--;
    if (again !== undefined) this.#plans.push(again);
    for (const wake of this.#waiting.splice(0)) wake();
  }
}
