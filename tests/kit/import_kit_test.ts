import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError, UsageError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { importKit } from "../../src/kit/import_kit.ts";
import { kitRecipe } from "../../src/kit/kit_catalogue.ts";
import { findKit, listKits, unfinishedKitFolders } from "../../src/kit/kit_store.ts";
import { scratchDir } from "../_verdict.ts";
import { gzip, gzipTar, kitTarballs, npmTarball } from "./_npm_tarball.ts";

const claude = kitRecipe("claude-code")!;
const codex = kitRecipe("codex")!;

async function written(folder: string, name: string, bytes: Uint8Array): Promise<string> {
  const path = join(folder, name);
  await Deno.writeFile(path, bytes);
  return path;
}

Deno.test("importKit stores the kit of a platform tarball and its main one, without integrity", async () => {
  await using scratch = await scratchDir("import");
  const tarballs = await kitTarballs(claude, "2.1.332");
  const platform = await written(scratch.path, "platform.tgz", tarballs.platform.tarball);
  const main = await written(scratch.path, "main.tgz", tarballs.main.tarball);
  const kit = await importKit(scratch.path, [main, platform]);
  assert.equal(kit.agent, "claude-code");
  assert.equal(kit.version, "2.1.332");
  assert.equal(kit.binary, "claude");
  assert.equal(kit.sha256, sha256Hex(tarballs.binary));
  assert.deepEqual(kit.companions, []);
  assert.deepEqual(kit.packages, [
    {
      name: claude.platformPackage("2.1.332").name,
      version: "2.1.332",
      sha256: sha256Hex(tarballs.platform.tarball),
      integrity: null,
    },
    {
      name: "@anthropic-ai/claude-code",
      version: "2.1.332",
      sha256: sha256Hex(tarballs.main.tarball),
      integrity: null,
    },
  ]);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(kit.folder))).map((e) => e.name).sort(), [
    "claude",
    "kit.json",
  ]);
  assert.deepEqual(await listKits(scratch.path), [kit]);
  // The same tarball again: the kit as it was.
  assert.deepEqual(await importKit(scratch.path, [platform]), kit);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importKit takes codex's platform package alone (same name as the main one)", async () => {
  await using scratch = await scratchDir("import");
  const tarballs = await kitTarballs(codex, "0.171.0");
  const platform = await written(scratch.path, "codex-platform.tgz", tarballs.platform.tarball);
  const kit = await importKit(scratch.path, [platform]);
  assert.deepEqual([kit.agent, kit.version, kit.binary], ["codex", "0.171.0", "codex"]);
  assert.deepEqual(
    kit.companions,
    ["codex-code-mode-host", "path/rg"].map((name) => ({
      name,
      sha256: sha256Hex(tarballs.companions.get(name)!),
      size: tarballs.companions.get(name)!.length,
    })),
  );
  assert.deepEqual((await Array.fromAsync(Deno.readDir(kit.folder))).map((e) => e.name).sort(), [
    "codex",
    "codex-code-mode-host",
    "kit.json",
    "path",
  ]);
  assert.deepEqual(
    await Deno.readFile(join(kit.folder, "codex-code-mode-host")),
    tarballs.companions.get("codex-code-mode-host"),
  );
  for (const name of ["codex-code-mode-host", "path", "path/rg"]) {
    assert.equal((await Deno.stat(join(kit.folder, name))).mode! & 0o777, 0o755, name);
  }
  assert.deepEqual(await findKit(scratch.path, "codex", "0.171.0"), kit);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importKit refuses a platform package that lacks a companion file, naming file and path", async () => {
  await using scratch = await scratchDir("import");
  const tarballs = await kitTarballs(codex, "0.171.0", ["codex-code-mode-host"]);
  const platform = await written(scratch.path, "codex-platform.tgz", tarballs.platform.tarball);
  await assert.rejects(
    () => importKit(scratch.path, [platform]),
    (error) =>
      error instanceof InputError &&
      error.message.startsWith(`${platform}: ${codex.companions[0].path}`) &&
      error.message.includes("lacks this file"),
  );
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importKit without the platform package says which one to give", async () => {
  await using scratch = await scratchDir("import");
  const tarballs = await kitTarballs(claude, "2.1.332");
  const main = await written(scratch.path, "main.tgz", tarballs.main.tarball);
  const wanted = claude.platformPackage("2.1.332");
  await assert.rejects(
    () => importKit(scratch.path, [main]),
    (error) =>
      error instanceof UsageError && error.message.includes(main) &&
      error.message.includes(`npm pack ${wanted.name}@${wanted.version}`),
  );
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importKit refuses, naming the file, what is not an agent's npm tarball", async () => {
  await using scratch = await scratchDir("import");
  const cases = [
    await written(scratch.path, "notes.tgz", new TextEncoder().encode("just text\n")),
    await written(scratch.path, "text.gz", await gzip(new TextEncoder().encode("x".repeat(2000)))),
    await written(scratch.path, "bare.tgz", await gzipTar([{ path: "a.txt", content: "a" }])),
    await written(scratch.path, "left-pad.tgz", await npmTarball("left-pad", "1.3.0")),
    join(scratch.path, "missing.tgz"),
  ];
  for (const file of cases) {
    await assert.rejects(
      () => importKit(scratch.path, [file]),
      (error) => error instanceof InputError && error.message.startsWith(`${file}:`),
      file,
    );
  }
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("importKit refuses tarballs of two agents together, and a different binary for a stored version", async () => {
  await using scratch = await scratchDir("import");
  const claudeTarballs = await kitTarballs(claude, "2.1.332");
  const codexTarballs = await kitTarballs(codex, "0.171.0");
  const claudePlatform = await written(scratch.path, "c.tgz", claudeTarballs.platform.tarball);
  const codexPlatform = await written(scratch.path, "x.tgz", codexTarballs.platform.tarball);
  await assert.rejects(
    () => importKit(scratch.path, [claudePlatform, codexPlatform]),
    (error) => error instanceof InputError && error.message.startsWith(`${codexPlatform}:`),
  );
  await importKit(scratch.path, [claudePlatform]);
  const other = claude.platformPackage("2.1.332");
  const changed = await written(
    scratch.path,
    "changed.tgz",
    await npmTarball(other.name, other.version, [
      {
        path: claude.binaryPath,
        content: new Uint8Array([...claudeTarballs.binary, 0]),
      },
    ]),
  );
  await assert.rejects(() => importKit(scratch.path, [changed]), /another binary/);
});

Deno.test("importKit refuses a version that is a path or holds control characters, naming the tarball and the field, and writes nothing outside the state folder", async () => {
  await using scratch = await scratchDir("import");
  const home = join(scratch.path, "home");
  await Deno.mkdir(home);
  const versions = ["../../escaped", "/tmp/verdict-escaped", "2.1.332\n\x1b[31mred"];
  for (const recipe of [claude, codex]) {
    for (const version of versions) {
      const tarballs = await kitTarballs(recipe, version);
      for (
        const [part, tarball] of [["main", tarballs.main.tarball], [
          "platform",
          tarballs.platform.tarball,
        ]] as const
      ) {
        const file = await written(scratch.path, `${part}.tgz`, tarball);
        const error = await importKit(home, [file]).then(() => undefined, (error) => error);
        assert(
          error instanceof InputError,
          `${recipe.agent} ${part} ${JSON.stringify(version)}: ${error}`,
        );
        assert(error.message.startsWith(`${file}:`), error.message);
        assert.match(error.message, /version/);
        assert(
          ![...error.message.replace(/\n/g, "")].some((char) => char < " " || char === "\x7f"),
          JSON.stringify(error.message),
        );
      }
    }
  }
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(scratch.path))).map((entry) => entry.name).sort(),
    ["home", "main.tgz", "platform.tgz"],
  );
  assert.equal(await Deno.stat("/tmp/verdict-escaped").then(() => true, () => false), false);
  assert.deepEqual(await listKits(home), []);
});
