/**
 * The layer map of `src/`, written once: a file in a folder may import from its own folder and
 * from folders of a strictly lower rank, never from a higher or equal-ranked neighbour. Adding a
 * folder under `src/` means adding it here, or the lint refuses its files.
 *
 * A key may name a nested folder (`"eval/trial": 7`): a file belongs to the longest key covering
 * its folder, so subfolders of one folder are ranked against each other (and against every other
 * key, on the same scale); files under one key may import each other. The rule is
 * `verdict/layered-imports` (lint/layered_imports.ts).
 *
 * @module
 */
import type { LayerTable } from "./layered_imports.ts";

/** Folder under `src/` → rank. Lower ranks know nothing of higher ones. */
export const LAYERS: LayerTable = {
  /** Canonical JSON, hashing, ids, RNG, clocks, errors. */
  core: 0,
  /** SQLite: migrations, event logs, blobs, verification. */
  store: 1,
  /** Task manifests: schemas, loading, suite digests. */
  task: 1,
  /**
   * Docker through its CLI, the exec channel, tar streams, the Sandbox seam and its in-memory
   * double; imports only core.
   */
  engine: 1,
  /**
   * The workspace model: staging a task, snapshots, the seal, workspace tars; uses the engine
   * through the Sandbox seam.
   */
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
  /** The eval runner (its subfolders are ranked below; nothing sits at `eval/` itself). */
  eval: 6,
  /**
   * One trial as a line of phases: its plan, its start, its scope, the kinds of task, its gateway,
   * re-driving a recorded session.
   */
  "eval/trial": 6,
  /** Building a run's agent, model and gateways from flags or a record; the run's identity. */
  "eval/setup": 7,
  /** `verdict replay`: recorded sessions re-driven and compared. */
  "eval/replay": 8,
  /** Runs: eval, resume, merge, tasks check, locks and ownership. */
  "eval/run": 8,
  /**
   * `verdict view`: the local web viewer over a state folder's records (read-only), and its
   * static bundle.
   */
  view: 6,
  /**
   * The library's functions over a state folder's recorded runs, by run id: resume, replay,
   * verify, stats, compare, report.
   */
  library: 9,
  /** Command-line commands. */
  cli: 10,
};

/** The one file under `src/` allowed to read the real clock and entropy. */
export const DETERMINISM_EXEMPT = "src/core/system_clock.ts";
