// What is at a path, or null when nothing is (a missing path, or one through a file).

/** `Deno.statSync`, null where the path does not exist. */
export function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}
