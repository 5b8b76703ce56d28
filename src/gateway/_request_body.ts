/**
 * A request body as the gateway reads it: whole, as text, while it can still be answered; past
 * `ceiling` bytes (a size the trial's budget cannot admit) only counted, hashed and its start
 * kept, so that an agent sending large calls past its budget never makes Verdict's process hold
 * them; past `limit` bytes, refused unread.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** How much of an unread body is kept, in bytes (its excerpt is decoded from them). */
const EXCERPT_BYTES = 1024;

/** What reading a body gave. */
export type RequestBody =
  /** The whole body. */
  | { kind: "text"; text: string }
  /** Past the limit: the rest was not read. */
  | { kind: "too_large" }
  /** Past the ceiling: only its size, its SHA-256 and its start. */
  | { kind: "unread"; bytes: number; sha256: string; excerpt: string };

/**
 * Reads `request`'s body under `limit` bytes, whole while it is at most `ceiling` bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRequestBody } from "./_request_body.ts";
 * const post = (body: string) => new Request("http://g/", { method: "POST", body });
 * assert.deepEqual(await readRequestBody(post("hi"), 100, 10), { kind: "text", text: "hi" });
 * const unread = await readRequestBody(post("x".repeat(50)), 100, 10);
 * assert.equal(unread.kind === "unread" && unread.bytes, 50);
 * assert.deepEqual(await readRequestBody(post("x".repeat(200)), 100, 10), { kind: "too_large" });
 * ```
 */
export async function readRequestBody(
  request: Request,
  limit: number,
  ceiling: number,
): Promise<RequestBody> {
  if (request.body === null) return { kind: "text", text: "" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Read as it comes while it can still be admitted: the usual case, and the cheapest.
  const reader = request.body.getReader();
  while (size <= ceiling) {
    const { done, value } = await reader.read();
    if (done) return { kind: "text", text: decoded(chunks) };
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return { kind: "too_large" };
    }
    chunks.push(value);
  }
  reader.releaseLock();
  // Past the ceiling: the rest only hashed and counted, read into one buffer reused.
  const hash = createHash("sha256");
  const excerpt = decoded(firstBytes(chunks, EXCERPT_BYTES));
  for (const kept of chunks) hash.update(kept);
  chunks.length = 0;
  for await (const chunk of byteChunks(request.body)) {
    size += chunk.byteLength;
    if (size > limit) break; // the reader's lock goes with the loop
    hash.update(chunk);
  }
  if (size > limit) {
    await request.body.cancel().catch(() => undefined);
    return { kind: "too_large" };
  }
  return { kind: "unread", bytes: size, sha256: hash.digest("hex"), excerpt };
}

/**
 * The stream's chunks, each a view of one buffer reused from read to read where the stream
 * allows it (a request's body does: a body that is only hashed then makes no garbage); a chunk
 * must be copied to be kept.
 */
async function* byteChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    yield* body;
    return;
  }
  let buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const { done, value } = await reader.read(buffer);
      if (done || value === undefined) return;
      yield value;
      buffer = new Uint8Array(value.buffer);
    }
  } finally {
    reader.releaseLock();
  }
}

// Decoded chunk by chunk: no joined copy of the body is made.
function decoded(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}

function firstBytes(chunks: readonly Uint8Array[], count: number): Uint8Array[] {
  const taken: Uint8Array[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= count) break;
    taken.push(chunk.subarray(0, count - size));
    size += taken.at(-1)!.byteLength;
  }
  return taken;
}
