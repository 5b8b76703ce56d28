/**
 * Time enters Verdict only through a {@linkcode Clock}. The real one lives in `system_clock.ts`
 * (the one module the determinism lint exempts); everything else takes a clock as a parameter, so
 * tests use a {@linkcode LogicalClock} and replays use a {@linkcode RecordedClock}.
 *
 * @module
 */

/**
 * A source of time.
 *
 * @example A clock that starts at the epoch and moves only when slept on
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Clock } from "./clock.ts";
 * let time = 0;
 * const clock: Clock = {
 *   now: () => time,
 *   monotonic: () => time,
 *   sleep: (ms) => Promise.resolve(void (time += ms)),
 * };
 * await clock.sleep(5);
 * assert.equal(clock.now(), 5);
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch: for timestamps a person reads. */
  now(): number;
  /** Milliseconds on a monotonic scale: for durations and deadlines. */
  monotonic(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** One reading of a clock, as recorded in a session's events. */
export interface ClockReading {
  /** Which reading was taken. */
  kind: "now" | "monotonic";
  /** The value returned. */
  value: number;
}

/** Options of {@linkcode LogicalClock}. */
export interface LogicalClockOptions {
  /** The epoch time of the first reading, in ms. Default 1,700,000,000,000 (November 2023). */
  start?: number;
  /** How far every reading advances the clock, in ms. Default 1. */
  tick?: number;
}

/**
 * A clock that only moves when read or slept on: every reading advances it by `tick` and `sleep`
 * advances it by the time asked without waiting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogicalClock } from "./clock.ts";
 * const clock = new LogicalClock({ start: 1000, tick: 5 });
 * assert(clock.now() === 1000 && clock.now() === 1005);
 * await clock.sleep(100);
 * assert(clock.monotonic() === 110);
 * ```
 */
export class LogicalClock implements Clock {
  #elapsed = 0;
  readonly #start: number;
  readonly #tick: number;

  /** Makes a logical clock. */
  constructor(options: LogicalClockOptions = {}) {
    this.#start = options.start ?? 1_700_000_000_000;
    this.#tick = options.tick ?? 1;
  }

  /** The start plus the time elapsed so far; then advances by one tick. */
  now(): number {
    return this.#start + this.#read();
  }

  /** The time elapsed so far; then advances by one tick. */
  monotonic(): number {
    return this.#read();
  }

  /** Advances by `ms` at once. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#elapsed += Math.max(0, ms);
    return Promise.resolve();
  }

  #read(): number {
    const value = this.#elapsed;
    this.#elapsed += this.#tick;
    return value;
  }
}

/**
 * Wraps a clock and reports each reading to a sink, so the readings can be stored as events.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogicalClock, recordingClock, type ClockReading } from "./clock.ts";
 * const readings: ClockReading[] = [];
 * const clock = recordingClock(new LogicalClock({ start: 0 }), (reading) => readings.push(reading));
 * clock.now();
 * assert(readings.length === 1 && readings[0].kind === "now");
 * ```
 */
export function recordingClock(inner: Clock, sink: (reading: ClockReading) => void): Clock {
  return {
    now() {
      const value = inner.now();
      sink({ kind: "now", value });
      return value;
    },
    monotonic() {
      const value = inner.monotonic();
      sink({ kind: "monotonic", value });
      return value;
    },
    sleep: (ms, signal) => inner.sleep(ms, signal),
  };
}

/** A replayed clock was read differently from the recording. */
export class ClockDivergence extends Error {
  /** Makes the error. */
  constructor(message: string) {
    super(message);
    this.name = "ClockDivergence";
  }
}

/**
 * A clock that plays back recorded readings in order, for replay. Reading it in a different order
 * or more often than recorded throws {@linkcode ClockDivergence}; `sleep` returns at once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordedClock } from "./clock.ts";
 * const clock = new RecordedClock([{ kind: "now", value: 42 }]);
 * assert(clock.now() === 42 && clock.remaining === 0);
 * ```
 */
export class RecordedClock implements Clock {
  readonly #readings: readonly ClockReading[];
  #next = 0;

  /** Makes a clock that returns these readings in order. */
  constructor(readings: readonly ClockReading[]) {
    this.#readings = readings;
  }

  /** How many recorded readings are left. */
  get remaining(): number {
    return this.#readings.length - this.#next;
  }

  /** The next recorded `now` reading. */
  now(): number {
    return this.#take("now");
  }

  /** The next recorded `monotonic` reading. */
  monotonic(): number {
    return this.#take("monotonic");
  }

  /** Returns at once: a replay does not wait. */
  sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  }

  #take(kind: ClockReading["kind"]): number {
    const reading = this.#readings[this.#next];
    if (reading === undefined) {
      throw new ClockDivergence(
        `clock read (${kind}) after all ${this.#readings.length} recorded readings`,
      );
    }
    if (reading.kind !== kind) {
      throw new ClockDivergence(
        `clock reading ${this.#next} was recorded as ${reading.kind} but replayed as ${kind}`,
      );
    }
    this.#next++;
    return reading.value;
  }
}
