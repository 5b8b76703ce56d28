/**
 * `read_docs`: the only documentation the agent may read, the pages the task lists in `docs`,
 * served from the task folder on the host (they are not in the container).
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { type Tool, toolError } from "./tool.ts";
import { toolSchema } from "./tool_schema.ts";
import { truncateMiddle } from "./truncate.ts";

const READ_DOCS_ARGS = z.strictObject({ page: z.string().optional() });

/** Reads one of the task's documentation pages. */
export const readDocsTool: Tool<{ page?: string }> = {
  schema: toolSchema(
    "read_docs",
    "Read one of the task's documentation pages. Call it without `page` to list them.",
    READ_DOCS_ARGS,
  ),
  idempotent: true,
  mutates: false,
  args: READ_DOCS_ARGS,
  async run(args, context) {
    const pages = context.task.manifest.docs ?? [];
    if (pages.length === 0) return toolError("this task has no documentation pages");
    if (args.page === undefined) return { content: `pages: ${pages.join(", ")}`, isError: false };
    if (!pages.includes(args.page)) {
      return toolError(`no page '${args.page}'; pages: ${pages.join(", ")}`);
    }
    return {
      content: truncateMiddle(await Deno.readTextFile(join(context.task.dir, args.page))),
      isError: false,
    };
  },
};
