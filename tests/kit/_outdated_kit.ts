/**
 * Test helper: a stored kit turned into what an earlier Verdict stored.
 *
 * @module
 */
import { join } from "node:path";
import { type Kit, KIT_FILE } from "../../src/kit/kit_store.ts";

/** Rewrites a stored codex kit as format 1 left it: `kit.json` without companions, the binary alone. */
export async function makeOutdated(kit: Kit): Promise<void> {
  const record = JSON.parse(await Deno.readTextFile(join(kit.folder, KIT_FILE)));
  delete record.companions;
  record.format = "verdict-kit/1";
  await Deno.writeTextFile(join(kit.folder, KIT_FILE), JSON.stringify(record, null, 2) + "\n");
  await Deno.remove(join(kit.folder, "codex-code-mode-host"));
  await Deno.remove(join(kit.folder, "path"), { recursive: true });
}
