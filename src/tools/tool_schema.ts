/**
 * A tool's schema as the model sees it, derived from the zod schema that validates its arguments,
 * so that each tool states its arguments once.
 *
 * @module
 */
import { z } from "zod";
import type { ToolSchema } from "../model/model.ts";

/**
 * How the model sees a tool: its name, its description and the JSON Schema of `args` (the zod
 * schema that validates its arguments), without the `$schema` key.
 *
 * Two checks zod makes are left out, as the model has never been shown them and every recorded
 * request pins the schemas it was shown: a string's `minLength` of 1 (an empty `command` or
 * `pattern` is refused with zod's message instead), and the safe-integer bounds zod's `.int()`
 * adds where no bound of the tool's own is set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { toolSchema } from "./tool_schema.ts";
 * const schema = toolSchema("shell", "Run a command.", z.strictObject({
 *   command: z.string().min(1),
 *   timeout_s: z.number().int().min(1).optional(),
 * }));
 * assert.deepEqual(schema.parameters, {
 *   type: "object",
 *   properties: { command: { type: "string" }, timeout_s: { type: "integer", minimum: 1 } },
 *   required: ["command"],
 *   additionalProperties: false,
 * });
 * ```
 */
export function toolSchema(name: string, description: string, args: z.ZodObject): ToolSchema {
  const { $schema: _, ...parameters } = z.toJSONSchema(args, { override: leaveOutUnshownChecks });
  return { name, description, parameters };
}

function leaveOutUnshownChecks({ jsonSchema }: { jsonSchema: z.core.JSONSchema.BaseSchema }) {
  if (jsonSchema.minLength === 1) delete jsonSchema.minLength;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}
