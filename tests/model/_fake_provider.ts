/**
 * A real HTTP server on 127.0.0.1 that answers model requests from a queue of canned replies, in
 * the provider's own wire format, and keeps every request it received.
 *
 * @module
 */

/** One canned reply. */
export interface Reply {
  /** HTTP status (default 200). */
  status?: number;
  /** A JSON body, or raw text (for truncated or invalid JSON). */
  body: unknown;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** Wait this long before answering, in ms. */
  delayMs?: number;
}

/** A received request. */
export interface Received {
  /** The path. */
  path: string;
  /** Its headers. */
  headers: Headers;
  /** Its JSON body. */
  body: Record<string, unknown>;
}

/** Starts a fake provider; `next` computes a reply when the queue is empty. */
export function fakeProvider(
  replies: Reply[],
  next?: (request: Received) => Reply,
): { url: string; received: Received[]; [Symbol.asyncDispose](): Promise<void> } {
  const received: Received[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    async (request) => {
      const entry: Received = {
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: await request.json(),
      };
      received.push(entry);
      const reply = replies.shift() ?? next?.(entry) ??
        { status: 500, body: { error: { message: "no reply queued" } } };
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      return new Response(text, {
        status: reply.status ?? 200,
        headers: { "content-type": "application/json", ...reply.headers },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    async [Symbol.asyncDispose]() {
      controller.abort();
      await server.finished;
    },
  };
}

/** An OpenAI Chat Completions reply. */
export function openAiReply(
  content: string | null,
  toolCalls: { id: string; name: string; arguments: string }[] = [],
  usage = {
    prompt_tokens: 100,
    completion_tokens: 20,
    prompt_tokens_details: { cached_tokens: 40 },
  },
): Reply {
  return {
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-test",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content,
          ...(toolCalls.length > 0
            ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }
            : {}),
        },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
      }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** An Anthropic Messages reply. */
export function anthropicReply(
  text: string,
  toolUses: { id: string; name: string; input: Record<string, unknown> }[] = [],
  usage = {
    input_tokens: 80,
    output_tokens: 20,
    cache_read_input_tokens: 30,
    cache_creation_input_tokens: 5,
  },
): Reply {
  return {
    body: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        ...(text ? [{ type: "text", text }] : []),
        ...toolUses.map((use) => ({
          type: "tool_use",
          id: use.id,
          name: use.name,
          input: use.input,
        })),
      ],
      stop_reason: toolUses.length > 0 ? "tool_use" : "end_turn",
      usage,
    },
  };
}
