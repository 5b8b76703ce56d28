/**
 * What a tool is: a name, a description and an argument schema the model sees, whether running it
 * twice is the same as running it once, and how it runs inside the trial's container.
 *
 * @module
 */
import type { ToolSchema } from "../model/model.ts";
import type { SandboxContainer } from "../engine/sandbox.ts";
import type { Task } from "../task/task.ts";

/** What a tool runs against. */
export interface ToolContext {
  /** The trial's container. */
  container: SandboxContainer;
  /** The task (its workdir, its documentation pages). */
  task: Task;
  /** Aborts the tool: the task's deadline, or an interrupt. Its command is killed. */
  signal: AbortSignal;
  /**
   * Whether the policy lets `tool` act on this workspace-relative path, judged on the file itself:
   * a search of `.` leaves out the files `search` may not read, and `read_file` judges where a
   * link leads and every name of a hard-linked file, not only the name it was given.
   */
  permits(tool: string, path: string): boolean;
}

/** What a tool returns to the model. */
export interface ToolResult {
  /** The text the model reads. */
  content: string;
  /** Whether the call failed. */
  isError: boolean;
  /** Set by `finish`: the agent says it is done. */
  finish?: boolean;
}

/** One problem with a tool's arguments. */
export interface ArgsIssue {
  /** Where: the keys and indices leading to the bad argument (empty for the whole object). */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in words. */
  readonly message: string;
}

/** The outcome of validating a tool's arguments: the typed arguments, or every problem. */
export type ArgsParseResult<A> =
  | { readonly success: true; readonly data: A }
  | { readonly success: false; readonly error: { readonly issues: readonly ArgsIssue[] } };

/**
 * What validates a tool's arguments. A zod schema is one, as are the built-in tools' schemas,
 * from which `toolSchema` derives the JSON Schema the model sees.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import type { ArgsSchema } from "./tool.ts";
 * const args: ArgsSchema<{ path: string }> = z.strictObject({ path: z.string() });
 * assert(!args.safeParse({ path: 1 }).success);
 * ```
 */
export interface ArgsSchema<A> {
  /** Validates the model's arguments, never throwing. */
  safeParse(value: unknown): ArgsParseResult<A>;
}

/** A tool. */
export interface Tool<A = Record<string, unknown>> {
  /** How the model sees it. */
  schema: ToolSchema;
  /** Whether running it twice has the same effect as running it once. */
  idempotent: boolean;
  /** Whether it can change files (the workspace is then snapshotted after it runs). */
  mutates: boolean;
  /** Validates the model's arguments. */
  args: ArgsSchema<A>;
  /** Runs it. */
  run(args: A, context: ToolContext): Promise<ToolResult>;
}

/** A tool with its argument type erased, for lists of tools. */
// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<any>;

/**
 * A tool error for the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolError } from "./tool.ts";
 * assert(toolError("no such file").isError);
 * ```
 */
export function toolError(content: string): ToolResult {
  return { content, isError: true };
}
