/**
 * The one time every file Verdict stages carries, and every folder the engine makes when an
 * installed agent's container starts is set to: a trial's files then look the same on any day,
 * and an agent that lists them asks its model the same thing in a replay.
 *
 * @module
 */

/**
 * The fixed file time, in seconds since the epoch (2023-11-14T22:13:20Z).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FIXED_FILE_TIME_S } from "./fixed_file_time.ts";
 * assert.equal(new Date(FIXED_FILE_TIME_S * 1000).toISOString(), "2023-11-14T22:13:20.000Z");
 * ```
 */
export const FIXED_FILE_TIME_S = 1_700_000_000;

/**
 * The fixed file time as `touch -t` takes it (`CCYYMMDDhhmm.SS`, read in UTC with `TZ=UTC0`):
 * GNU's and busybox's `touch` both understand it, where `-d @SECONDS` is GNU's own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FIXED_FILE_TIME_TOUCH } from "./fixed_file_time.ts";
 * assert.equal(FIXED_FILE_TIME_TOUCH, "202311142213.20");
 * ```
 */
export const FIXED_FILE_TIME_TOUCH: string = new Date(FIXED_FILE_TIME_S * 1000).toISOString()
  .replace(/^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d).*$/, "$1$2$3$4$5.$6");
