/**
 * The layer map of `src/`, written once: a file in a folder may import from its own folder and
 * from folders of a strictly lower rank, never from a higher or equal-ranked neighbour. Adding a
 * folder under `src/` means adding it here, or the lint refuses its files.
 *
 * @module
 */

/** Folder under `src/` → rank. Lower ranks know nothing of higher ones. */
export const LAYERS: Readonly<Record<string, number>> = {
  /** Canonical JSON, hashing, ids, RNG, clocks, errors. */
  core: 0,
  /** SQLite: migrations, event logs, blobs, verification. */
  store: 1,
  /** Task manifests: schemas, loading, suite digests. */
  task: 1,
  /** Docker through its CLI, the exec channel, tar streams, the Sandbox seam and its memory double. */
  engine: 1,
  /** The workspace model: snapshots, the seal, workspace tars; uses the engine through the seam. */
  workspace: 2,
  /** Permission policy: rules and shell word splitting. */
  policy: 2,
  /** Model clients: scripted, OpenAI-compatible, Anthropic, replay. */
  model: 2,
  /** Statistics: intervals, pass@k, McNemar. */
  stats: 2,
  /** Installed agents' kits: fetched from npm or imported, checksummed, stored under the state folder. */
  kit: 2,
  /** Tools the agent calls, executed in the sandbox. */
  tools: 3,
  /** Grading: checks over sealed snapshots, success scripts in a fresh container. */
  grading: 3,
  /** The model gateway: agents' HTTP model calls answered, budgeted and recorded. */
  gateway: 3,
  /** Agents: the loop, context budgeting, token counting, cost; oracle and nop. */
  agent: 4,
  /** Results and reports: results.json, Markdown, HTML. */
  report: 5,
  /** The eval runner: trials, resume, replay. */
  eval: 6,
  /** Command-line commands. */
  cli: 7,
};

/** The one file under `src/` allowed to read the real clock and entropy. */
export const DETERMINISM_EXEMPT = "src/core/system_clock.ts";
