import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { InfrastructureError, UsageError } from "../../src/core/errors.ts";
import { fetchKit } from "../../src/kit/fetch_kit.ts";
import { kitRecipe } from "../../src/kit/kit_catalogue.ts";
import { findKit, kitsFolder, listKits, unfinishedKitFolders } from "../../src/kit/kit_store.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { scratchDir } from "../_verdict.ts";
import { fakeRegistry, integrityOf, kitTarballs } from "./_npm_tarball.ts";

const codex = kitRecipe("codex")!;
const claude = kitRecipe("claude-code")!;

Deno.test("fetchKit stores a kit with its companion files that findKit and listKits return, and does not fetch it twice", async () => {
  await using scratch = await scratchDir("fetch");
  const tarballs = await kitTarballs(codex, "0.171.0");
  await using registry = fakeRegistry([tarballs.main, tarballs.platform]);
  const kit = await fetchKit(scratch.path, "codex", undefined, { registry: registry.url });
  const folder = resolve(kitsFolder(scratch.path), "codex", "0.171.0");
  assert.deepEqual(kit, {
    agent: "codex",
    version: "0.171.0",
    folder,
    binary: "codex",
    sha256: sha256Hex(tarballs.binary),
    size: tarballs.binary.length,
    interpreter: Deno.build.arch === "x86_64" ? "/lib64/ld-linux-x86-64.so.2" : kit.interpreter,
    companions: ["codex-code-mode-host", "path/rg"].map((name) => ({
      name,
      sha256: sha256Hex(tarballs.companions.get(name)!),
      size: tarballs.companions.get(name)!.length,
    })),
    packages: [
      {
        name: "@openai/codex",
        version: tarballs.platform.version,
        sha256: sha256Hex(tarballs.platform.tarball),
        integrity: integrityOf(tarballs.platform.tarball),
      },
      {
        name: "@openai/codex",
        version: "0.171.0",
        sha256: sha256Hex(tarballs.main.tarball),
        integrity: integrityOf(tarballs.main.tarball),
      },
    ],
  });
  assert.deepEqual(await Deno.readFile(join(folder, "codex")), tarballs.binary);
  for (const name of ["codex", "codex-code-mode-host", "path", "path/rg"]) {
    assert.equal((await Deno.stat(join(folder, name))).mode! & 0o777, 0o755, name);
  }
  assert.deepEqual(
    await Deno.readFile(join(folder, "path/rg")),
    tarballs.companions.get("path/rg"),
  );
  assert.deepEqual((await Array.fromAsync(Deno.readDir(folder))).map((e) => e.name).sort(), [
    "codex",
    "codex-code-mode-host",
    "kit.json",
    "path",
  ]);
  assert.deepEqual(await findKit(scratch.path, "codex", "0.171.0"), kit);
  assert.deepEqual(await listKits(scratch.path), [kit]);
  assert.deepEqual([...registry.downloads.values()], [1, 1]);

  assert.deepEqual(
    await fetchKit(scratch.path, "codex", "0.171.0", { registry: registry.url }),
    kit,
  );
  assert.deepEqual([...registry.downloads.values()], [1, 1]);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("a tarball that does not match the registry's integrity is an infrastructure error, nothing stored", async () => {
  await using scratch = await scratchDir("fetch");
  const tarballs = await kitTarballs(claude, "2.1.332");
  const other = await kitTarballs(codex, "0.171.0");
  await using registry = fakeRegistry([
    tarballs.main,
    { ...tarballs.platform, integrity: integrityOf(other.platform.tarball) },
  ]);
  await assert.rejects(
    () => fetchKit(scratch.path, "claude-code", "2.1.332", { registry: registry.url }),
    (error) =>
      error instanceof InfrastructureError &&
      error.message.includes("@anthropic-ai/claude-code-linux-x64@2.1.332") &&
      error.message.includes("does not match the registry's integrity"),
  );
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});

Deno.test("a version the registry lacks, or an unknown agent, is a usage error saying what to do", async () => {
  await using scratch = await scratchDir("fetch");
  await using registry = fakeRegistry([]);
  await assert.rejects(
    () => fetchKit(scratch.path, "codex", "9.9.9", { registry: registry.url }),
    (error) =>
      error instanceof UsageError && error.message.includes("@openai/codex@9.9.9") &&
      error.message.includes("npm view @openai/codex versions"),
  );
  await assert.rejects(
    () => fetchKit(scratch.path, "aider", undefined, { registry: registry.url }),
    (error) => error instanceof UsageError && error.message.includes("claude-code, codex"),
  );
});

Deno.test("an unreachable registry is an infrastructure error naming the package", async () => {
  await using scratch = await scratchDir("fetch");
  const registry = fakeRegistry([]);
  const url = registry.url;
  await registry[Symbol.asyncDispose]();
  await assert.rejects(
    () => fetchKit(scratch.path, "codex", undefined, { registry: url }),
    (error) =>
      error instanceof InfrastructureError && error.message.includes("@openai/codex@0.171.0"),
  );
});

Deno.test("the folder of a fetch killed halfway is not a kit", async () => {
  await using scratch = await scratchDir("fetch");
  const partial = join(kitsFolder(scratch.path), ".partial-abc123");
  await Deno.mkdir(partial, { recursive: true });
  await Deno.writeFile(join(partial, "0-codex"), new Uint8Array(10));
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), [partial]);
  assert.equal(await findKit(scratch.path, "codex", "0.171.0"), null);
});

Deno.test("a platform tarball without a companion file the binary needs is refused, nothing stored", async () => {
  await using scratch = await scratchDir("fetch");
  const tarballs = await kitTarballs(codex, "0.171.0", ["path/rg"]);
  await using registry = fakeRegistry([tarballs.main, tarballs.platform]);
  await assert.rejects(
    () => fetchKit(scratch.path, "codex", undefined, { registry: registry.url }),
    (error) =>
      error instanceof InfrastructureError &&
      error.message.includes(`holds no ${codex.companions[1].path}`),
  );
  assert.deepEqual(await listKits(scratch.path), []);
  assert.deepEqual(await unfinishedKitFolders(scratch.path), []);
});
