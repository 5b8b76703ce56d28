/**
 * The loop agent's system prompt. Its hash is recorded with every run; replaying a session
 * against a changed prompt diverges at the first request.
 *
 * @module
 */
import type { Task } from "../task/task.ts";

/**
 * The system prompt for a task.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { systemPrompt } from "./system_prompt.ts";
 * // deno-lint-ignore no-explicit-any
 * const task = { manifest: { workdir: "/workspace", docs: [] } } as any;
 * assert(systemPrompt(task).includes("/workspace"));
 * ```
 */
export function systemPrompt(task: Task): string {
  const docs = (task.manifest.docs ?? []).length > 0
    ? "\nDocumentation for this task is available through read_docs; nothing else is."
    : "";
  return [
    `You are a software engineer working on a task in a sandboxed Linux container. Your working folder is ${task.manifest.workdir}; every path you give a tool is relative to it.`,
    "Work only through the tools. Read before you change things, and run the tests you can.",
    "Some calls are not allowed: a denied call comes back as an error naming the rule; find another way.",
    "When the task is done, call finish with a short summary. Hidden tests decide whether you succeeded; saying you are done does not.",
  ].join("\n") + docs;
}
