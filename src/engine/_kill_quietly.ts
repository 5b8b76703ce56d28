// Killing a docker CLI child that may already have exited.

/** Sends SIGKILL to `child`; one that has exited already is left alone. */
export function killQuietly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
}
