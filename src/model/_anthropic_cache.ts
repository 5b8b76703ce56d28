/**
 * Anthropic prompt caching on a Messages request's stable prefix. The API renders a request as
 * tools, then system, then messages, and caches the prefix up to each block marked
 * `cache_control: {type: "ephemeral"}` (a breakpoint; at most four per request). A later request
 * whose prefix matches byte for byte reads it at the cache-read price. The marks go on the last
 * tool, the system prompt, the end of the conversation (written now, read by the next turn) and
 * the end of the previous user turn (the previous request's last breakpoint, read back exactly
 * even when this turn added more blocks than the API looks back over). A prefix shorter than the
 * model's minimum (1,024 tokens or more, by model) is simply not cached: no error, no charge.
 *
 * @module
 */

/** The marker of a cache breakpoint. */
const EPHEMERAL = { type: "ephemeral" } as const;

type Block = Record<string, unknown>;
type Turn = { role: string; content: Block[] };

/**
 * The request body with cache breakpoints on its stable prefix; the system prompt, when there is
 * one, becomes a text block (a breakpoint needs a block). The body given is not changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withPromptCache } from "./_anthropic_cache.ts";
 * const body = withPromptCache({
 *   model: "m", max_tokens: 10, system: "be brief",
 *   tools: [{ name: "a" }, { name: "b" }],
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
 * });
 * assert.deepEqual(body.system, [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }]);
 * assert.deepEqual((body.tools as object[])[1], { name: "b", cache_control: { type: "ephemeral" } });
 * ```
 */
export function withPromptCache(body: Record<string, unknown>): Record<string, unknown> {
  const marked = { ...body };
  const tools = body.tools as Block[] | undefined;
  if (tools !== undefined && tools.length > 0) {
    marked.tools = [...tools.slice(0, -1), { ...tools.at(-1), cache_control: EPHEMERAL }];
  }
  if (typeof body.system === "string" && body.system !== "") {
    marked.system = [{ type: "text", text: body.system, cache_control: EPHEMERAL }];
  }
  const turns = [...body.messages as Turn[]];
  const users = turns.flatMap((turn, index) => turn.role === "user" ? [index] : []);
  const previousUser = users.at(-1) === turns.length - 1 ? users.at(-2) : users.at(-1);
  for (const index of new Set([previousUser, turns.length - 1])) {
    if (index === undefined || index < 0) continue;
    const content = turns[index].content;
    turns[index] = {
      ...turns[index],
      content: [...content.slice(0, -1), { ...content.at(-1), cache_control: EPHEMERAL }],
    };
  }
  marked.messages = turns;
  return marked;
}
