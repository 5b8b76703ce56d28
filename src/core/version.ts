/**
 * The harness version. It is part of every run id's preimage, so a new version never reuses an
 * old version's run ids. Kept equal to `version` in `deno.json` (a test checks).
 *
 * @module
 */

/**
 * Verdict's version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERSION } from "./version.ts";
 * assert(/^\d+\.\d+\.\d+/.test(VERSION));
 * ```
 */
export const VERSION = "0.1.0";
