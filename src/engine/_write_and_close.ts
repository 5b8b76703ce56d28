/**
 * Feeding a child process its whole stdin.
 *
 * @module
 */
import type { LaterInput } from "./sandbox.ts";

/**
 * Writes `data` to the child's stdin and closes it. A child that exits before reading all of it
 * is not an error here: its exit code and stderr say why.
 */
export async function writeAndClose(child: Deno.ChildProcess, data: Uint8Array): Promise<void> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(data);
    await writer.close();
  } catch {
    // The process exited before reading all of its input.
  }
}

/**
 * Writes the stdin `later` brings once it does, and closes it. Closes it empty when `signal`
 * aborted first (the exec reports the abort), or when `later` rejects: then returns the reason,
 * for the exec to throw once its command has ended.
 */
export async function writeLaterAndClose(
  child: Deno.ChildProcess,
  later: Promise<LaterInput>,
  signal?: AbortSignal,
): Promise<{ reason: unknown } | undefined> {
  let input: LaterInput;
  try {
    input = await later;
  } catch (reason) {
    await child.stdin.close().catch(() => {});
    return { reason };
  }
  await writeAndClose(child, signal?.aborted ? new Uint8Array() : input.stdin);
  return undefined;
}
