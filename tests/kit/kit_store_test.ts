import assert from "node:assert/strict";
import { join } from "node:path";
import { CorruptionError } from "../../src/core/errors.ts";
import { fetchKit } from "../../src/kit/fetch_kit.ts";
import { importKit } from "../../src/kit/import_kit.ts";
import { kitRecipe } from "../../src/kit/kit_catalogue.ts";
import {
  findKit,
  type Kit,
  KIT_FILE,
  OutdatedKitError,
  unfinishedKitFolders,
} from "../../src/kit/kit_store.ts";
import { scratchDir } from "../_verdict.ts";
import { fakeRegistry, kitTarballs } from "./_npm_tarball.ts";
import { makeOutdated } from "./_outdated_kit.ts";

const codex = kitRecipe("codex")!;

async function storedCodexKit(home: string): Promise<Kit> {
  const tarballs = await kitTarballs(codex, "0.171.0");
  const platform = join(home, "codex-platform.tgz");
  await Deno.writeFile(platform, tarballs.platform.tarball);
  return await importKit(home, [platform]);
}

Deno.test("findKit refuses a kit whose companion file is missing or of another size, naming it", async () => {
  await using scratch = await scratchDir("kit-store");
  const kit = await storedCodexKit(scratch.path);
  await Deno.writeTextFile(join(kit.folder, "path/rg"), "shorter");
  await assert.rejects(
    () => findKit(scratch.path, "codex", "0.171.0"),
    (error) =>
      error instanceof CorruptionError && !(error instanceof OutdatedKitError) &&
      error.message.includes(`the kit in ${kit.folder} is damaged: its file path/rg has 7 bytes`) &&
      error.message.includes("fetch or import the kit again"),
  );
  await Deno.remove(join(kit.folder, "codex-code-mode-host"));
  await assert.rejects(
    () => findKit(scratch.path, "codex", "0.171.0"),
    /its file codex-code-mode-host is missing/,
  );
});

Deno.test("a kit stored before companion files is outdated: findKit says to fetch it again, which replaces it", async () => {
  await using scratch = await scratchDir("kit-store");
  const kit = await storedCodexKit(scratch.path);
  await makeOutdated(kit);
  await assert.rejects(
    () => findKit(scratch.path, "codex", "0.171.0"),
    (error) =>
      error instanceof OutdatedKitError && error instanceof CorruptionError &&
      error.message.includes(`the kit in ${kit.folder} is outdated`) &&
      error.message.includes("verdict agents fetch codex@0.171.0"),
  );
  const tarballs = await kitTarballs(codex, "0.171.0");
  await using registry = fakeRegistry([tarballs.main, tarballs.platform]);
  const fetched = await fetchKit(scratch.path, "codex", undefined, { registry: registry.url });
  assert.equal(fetched.folder, kit.folder);
  assert.deepEqual(fetched.companions.map((companion) => companion.name), [
    "codex-code-mode-host",
    "path/rg",
  ]);
  assert.deepEqual(await findKit(scratch.path, "codex", "0.171.0"), fetched);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importing an outdated kit's tarball again replaces it", async () => {
  await using scratch = await scratchDir("kit-store");
  const kit = await storedCodexKit(scratch.path);
  await makeOutdated(kit);
  const again = await storedCodexKit(scratch.path);
  assert.deepEqual(again, kit);
  assert.equal((await Deno.stat(join(kit.folder, "path"))).mode! & 0o777, 0o755);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("a kit.json lacking a companion its recipe names is outdated, whatever its format says", async () => {
  await using scratch = await scratchDir("kit-store");
  const kit = await storedCodexKit(scratch.path);
  const record = JSON.parse(await Deno.readTextFile(join(kit.folder, KIT_FILE)));
  record.companions = record.companions.slice(0, 1);
  await Deno.writeTextFile(join(kit.folder, KIT_FILE), JSON.stringify(record));
  await assert.rejects(
    () => findKit(scratch.path, "codex", "0.171.0"),
    (error) => error instanceof OutdatedKitError && /it lacks path\/rg;/.test(error.message),
  );
});
