/**
 * One model endpoint's gate, shared by every trial of a run (`--max-connections N`): at most N
 * calls are out at once, and when the provider asks one call to back off (429 with `Retry-After`,
 * or a 5xx), every call waits the same back-off before its next attempt, instead of each trial
 * finding the limit for itself. Waits run on the injected clock.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";

/**
 * The gate: a counted set of slots and a shared "not before" time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogicalClock } from "../core/clock.ts";
 * import { EndpointGate } from "./endpoint_gate.ts";
 * const gate = new EndpointGate(1, new LogicalClock());
 * const signal = new AbortController().signal;
 * const release = await gate.enter(signal);
 * let second = false;
 * const waiting = gate.enter(signal).then((next) => { second = true; return next; });
 * await Promise.resolve();
 * assert.equal(second, false); // the one slot is taken
 * release();
 * (await waiting)();
 * assert.equal(second, true);
 * ```
 */
export class EndpointGate {
  readonly #clock: Clock;
  #free: number;
  readonly #waiting: Array<() => void> = [];
  #notBefore = 0;

  /**
   * @param maxConnections Most calls out at once.
   * @param clock Where back-off waits run.
   */
  constructor(maxConnections: number, clock: Clock) {
    this.#free = maxConnections;
    this.#clock = clock;
  }

  /**
   * Waits for a slot and for any shared back-off to pass; returns the slot's release, which must
   * be called once the attempt is over.
   */
  async enter(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#free > 0) this.#free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal.removeEventListener("abort", abort);
          resolve();
        };
        const abort = () => {
          this.#waiting.splice(this.#waiting.indexOf(wake), 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", abort, { once: true });
        this.#waiting.push(wake);
      });
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
    try {
      for (let wait = this.#wait(); wait > 0; wait = this.#wait()) {
        await this.#clock.sleep(wait, signal);
      }
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /** The gate's clock, on its monotonic scale (so a caller can tell how long it waited). */
  now(): number {
    return this.#clock.monotonic();
  }

  /** Every call waits `ms` from now (or longer, if another back-off already asked for more). */
  backOff(ms: number): void {
    this.#notBefore = Math.max(this.#notBefore, this.#clock.monotonic() + ms);
  }

  #wait(): number {
    return this.#notBefore - this.#clock.monotonic();
  }
}

/**
 * Runs one attempt through `gate` (a slot held for its whole length), or straight when there is
 * no gate; `onWaited` hears how long it queued, which is no part of a call's retry budget.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogicalClock } from "../core/clock.ts";
 * import { EndpointGate, throughGate } from "./endpoint_gate.ts";
 * const gate = new EndpointGate(2, new LogicalClock());
 * const signal = new AbortController().signal;
 * assert.equal(await throughGate(gate, signal, () => Promise.resolve(7)), 7);
 * assert.equal(await throughGate(undefined, signal, () => Promise.resolve(8)), 8);
 * ```
 */
export async function throughGate<T>(
  gate: EndpointGate | undefined,
  signal: AbortSignal,
  attempt: () => Promise<T>,
  onWaited?: (ms: number) => void,
): Promise<T> {
  if (gate === undefined) return attempt();
  const entering = gate.now();
  const release = await gate.enter(signal);
  onWaited?.(gate.now() - entering);
  try {
    return await attempt();
  } finally {
    release();
  }
}
