/**
 * Feeding a child process its whole stdin.
 *
 * @module
 */

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
