/**
 * Field schemas that more than one event family uses.
 *
 * @module
 */
import { z } from "zod";

/** A sha256 in hex: of a blob, a request or a policy. */
export const HASH = z.string();

/** A count: a non-negative integer. */
export const COUNT = z.number().int().nonnegative();

/**
 * A workspace snapshot's root: its manifest and files are blobs that `verify` re-hashes. A kind
 * whose payload's `root` is this schema is one of `SNAPSHOT_KINDS`.
 */
export const SNAPSHOT_ROOT = z.string();

/** Tokens in and out. */
export const TOKENS = z.object({
  /** Input tokens. */
  input: COUNT,
  /** Output tokens. */
  output: COUNT,
});

/** Tokens of one model call. */
export const USAGE = z.object({
  /** Input tokens not served from a cache. */
  input: COUNT,
  /** Input tokens read from the cache. */
  cachedInput: COUNT,
  /** Input tokens written to the cache; absent in older records. */
  cacheWriteInput: COUNT.optional(),
  /** Output tokens. */
  output: COUNT,
});
