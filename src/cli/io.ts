/**
 * What a command may touch of the process: its output streams, whether stdout is a terminal, and
 * named environment variables. Commands take an {@linkcode Io} so tests can capture their output.
 *
 * @module
 */

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
  return {
    out: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    err: (text) => writeAll(Deno.stderr, encoder.encode(text)),
    isTerminal: Deno.stdout.isTerminal(),
    env: (name) => Deno.env.get(name),
  };
}

function writeAll(stream: typeof Deno.stdout, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}

/**
 * An {@linkcode Io} that records what is written, for tests and for embedding.
 *
 * @example
 * ```ts
 * import { memoryIo } from "./io.ts";
 * const io = memoryIo({ VERDICT_HOME: "/tmp/v" });
 * io.out("hello\n");
 * console.assert(io.stdout() === "hello\n" && io.env("VERDICT_HOME") === "/tmp/v");
 * ```
 */
export function memoryIo(
  env: Record<string, string> = {},
): Io & { stdout(): string; stderr(): string } {
  let stdout = "";
  let stderr = "";
  return {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    isTerminal: false,
    env: (name) => env[name],
    stdout: () => stdout,
    stderr: () => stderr,
  };
}
