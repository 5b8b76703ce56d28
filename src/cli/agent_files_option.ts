/**
 * Reading `--agent-files DIR`: an installed agent's own program, a folder copied into its container
 * (root's, readable by the agent user). A usage error (exit 2) names the flag when the folder is missing or unreadable, or
 * when the agent is not an installed one.
 *
 * @module
 */
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import type { OptionValues } from "./command.ts";
import { stringOption } from "./option_values.ts";

/**
 * The absolute path of the folder `--agent-files` names, or undefined when it is not given.
 *
 * @throws {UsageError} naming the flag when the folder is missing, not a folder or unreadable, or
 * when `installed` is false (only `--agent cmd:COMMAND` takes it).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentFilesOption } from "./agent_files_option.ts";
 * assert.equal(agentFilesOption({}, true), undefined);
 * assert.throws(() => agentFilesOption({ "agent-files": "no/such/dir" }, true), /--agent-files/);
 * ```
 */
export function agentFilesOption(values: OptionValues, installed: boolean): string | undefined {
  const dir = stringOption(values, "agent-files");
  if (dir === undefined) return undefined;
  if (!installed) {
    throw new UsageError(
      `--agent-files is for an installed agent (--agent cmd:COMMAND); drop it, or name the ` +
        `agent's command with --agent cmd:COMMAND`,
    );
  }
  const refuse = (why: string) =>
    new UsageError(
      `--agent-files ${dir} ${why}: give the folder that holds the agent's program (copied ` +
        `to /verdict/agent in its container, read-only for the agent)`,
    );
  let path: string;
  try {
    path = Deno.realPathSync(resolve(dir));
    if (!Deno.statSync(path).isDirectory) throw refuse("is not a folder");
    for (const _ of Deno.readDirSync(path)) break;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof Deno.errors.NotFound) throw refuse("does not exist");
    throw refuse(`cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  return path;
}
