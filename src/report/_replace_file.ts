/**
 * Writes a file whole or not at all: the text goes to a temporary file beside it, which then
 * replaces it, so a process killed while writing leaves the old file (or none), never half of one.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";

/** Replaces `path` with `text` in one rename. */
export async function replaceFile(path: string, text: string): Promise<void> {
  const staged = join(dirname(path), `.${basename(path)}.partial`);
  await Deno.writeTextFile(staged, text);
  await Deno.rename(staged, path);
}
