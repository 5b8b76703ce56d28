/**
 * What a command may touch of the process: its output streams, whether stdout is a terminal, and
 * named environment variables. Everything written has its control characters written out
 * (`_terminal_safe.ts`): a recorded string never reaches a terminal as a control sequence. Commands take an {@linkcode Io} so tests can capture their output.
 * A stream whose reader went away (`verdict eval | head -1`) is not an error: what would have been
 * written to it is dropped, and a closed stdout is signalled so a running eval stops as if
 * interrupted.
 *
 * @module
 */

import { terminalSafe } from "./_terminal_safe.ts";

/** A command's view of the process. */
export interface Io {
  /** Writes text to stdout as is. */
  out(text: string): void;
  /** Writes text to stderr as is. */
  err(text: string): void;
  /** Whether stdout is a terminal (progress redraws in place) or not (plain lines). */
  readonly isTerminal: boolean;
  /** An environment variable, or undefined. */
  env(name: string): string | undefined;
  /** Whether this process's permissions let it read or write `path` (never prompts). */
  may(access: "read" | "write", path: string): boolean;
  /** Aborts when stdout's reader goes away (a closed pipe); absent where that cannot happen. */
  readonly stdoutClosed?: AbortSignal;
}

/**
 * The real process: Deno's stdout, stderr and environment.
 *
 * @example
 * ```ts
 * import { denoIo } from "./io.ts";
 * denoIo().err("starting\n");
 * ```
 */
export function denoIo(): Io {
  const encoder = new TextEncoder();
  const stdoutClosed = new AbortController();
  const stderrClosed = new AbortController();
  return {
    out: (text) => writeAll(Deno.stdout, encoder.encode(terminalSafe(text)), stdoutClosed),
    err: (text) => writeAll(Deno.stderr, encoder.encode(terminalSafe(text)), stderrClosed),
    isTerminal: Deno.stdout.isTerminal(),
    env: (name) => Deno.env.get(name),
    may: (name, path) => Deno.permissions.querySync({ name, path }).state === "granted",
    stdoutClosed: stdoutClosed.signal,
  };
}

/** Writes every byte, unless the stream's reader is gone: then `closed` aborts, and it stays quiet. */
function writeAll(stream: typeof Deno.stdout, bytes: Uint8Array, closed: AbortController): void {
  if (closed.signal.aborted) return;
  let written = 0;
  try {
    while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
    closed.abort(error);
  }
}

/**
 * An {@linkcode Io} that records what is written, for tests and for embedding. It may touch only
 * the paths `may` allows (default none: outside a real process, no per-user key is found).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryIo } from "./io.ts";
 * const io = memoryIo({ VERDICT_HOME: "/tmp/v" });
 * io.out("hello\n");
 * assert(io.stdout() === "hello\n" && io.env("VERDICT_HOME") === "/tmp/v");
 * ```
 */
export function memoryIo(
  env: Record<string, string> = {},
  may: Io["may"] = () => false,
): Io & { stdout(): string; stderr(): string } {
  let stdout = "";
  let stderr = "";
  return {
    out: (text) => void (stdout += terminalSafe(text)),
    err: (text) => void (stderr += terminalSafe(text)),
    isTerminal: false,
    env: (name) => env[name],
    may,
    stdout: () => stdout,
    stderr: () => stderr,
  };
}
