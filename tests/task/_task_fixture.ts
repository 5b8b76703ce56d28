/**
 * Writes small task folders for tests.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** Files of a minimal valid busybox task, by path. */
export function minimalTask(id: string): Record<string, string> {
  return {
    "task.yaml": [
      `id: ${id}`,
      "category: shell",
      "image: verdict/busybox",
      "success: { script: test.sh, timeout_s: 30, expect_tests: 0 }",
      "",
    ].join("\n"),
    "instruction.md": "Create answer.txt holding the word yes.\n",
    "workspace/README.md": "A tiny workspace.\n",
    "tests/test.sh": "#!/bin/sh\ngrep -qx yes answer.txt\n",
    "solution/files/answer.txt": "yes\n",
  };
}

/** Writes files (path → text) under a folder; a script under tests/ or named *.sh is made executable. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    await Deno.mkdir(dirname(full), { recursive: true });
    await Deno.writeTextFile(full, text);
    if (path.endsWith(".sh")) await Deno.chmod(full, 0o755);
  }
}
