/**
 * The events of the task's workspace: staged, changed by a tool call, sealed at the end. Each
 * `root` is a snapshot's, whose manifest and files `verify` re-hashes.
 *
 * @module
 */
import { z } from "zod";
import { COUNT, SNAPSHOT_ROOT } from "./_fields.ts";

/** One path that differs between the staged and the sealed workspace. */
const CHANGE = z.object({
  /** The path. */
  path: z.string(),
  /** What happened to it. */
  change: z.enum(["added", "removed", "modified"]),
  /** For `modified`: which aspects differ. */
  aspects: z.array(z.enum(["content", "mode", "type", "target"])).optional(),
});

/** The workspace's events: kind → payload schema. */
export const WORKSPACE_EVENTS = {
  "workspace.staged": z.object({
    /** Its snapshot root. */
    root: SNAPSHOT_ROOT,
    /** How many entries it has. */
    entries: COUNT,
  }).describe("The task's workspace was staged: the root of its snapshot."),

  "workspace.snapshot": z.object({
    /** The step. */
    step: COUNT,
    /** The call. */
    call_id: z.string(),
    /** The snapshot root. */
    root: SNAPSHOT_ROOT,
  }).describe("The workspace after a tool call that changed it."),

  "end_state.sealed": z.object({
    /** Its snapshot root. */
    root: SNAPSHOT_ROOT,
    /** How it differs from the staged workspace. */
    changes: z.array(CHANGE),
  }).describe(
    "The end state was sealed: its snapshot root and how it differs from the staged one.",
  ),
};
