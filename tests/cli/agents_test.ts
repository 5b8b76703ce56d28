import assert from "node:assert/strict";
import { join } from "node:path";
import { kitRecipe } from "../../src/kit/kit_catalogue.ts";
import { kitsFolder } from "../../src/kit/kit_store.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { scratchDir, verdictCommand } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";
import { fakeRegistry, integrityOf, kitTarballs, npmTarball } from "../kit/_npm_tarball.ts";
import { makeOutdated } from "../kit/_outdated_kit.ts";
import { findKit } from "../../src/kit/kit_store.ts";

const codex = kitRecipe("codex")!;
const claude = kitRecipe("claude-code")!;

Deno.test("agents fetch stores a kit once; agents list shows it, pinned, in text and JSON", async () => {
  await using scratch = await scratchDir("agents");
  const tarballs = await kitTarballs(codex, "0.171.0");
  await using registry = fakeRegistry([tarballs.main, tarballs.platform]);
  const fetch = ["agents", "fetch", "codex", "--registry", registry.url, "--home", scratch.path];
  const first = await runVerdictInProcess(fetch);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^codex@0\.171\.0: stored in .*agents\/codex\/0\.171\.0 in [\d.]+ s/);
  assert.match(first.stderr, /downloading @openai\/codex@0\.171\.0-linux-/);
  const again = await runVerdictInProcess(fetch);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^codex@0\.171\.0: already present in /);
  assert.deepEqual([...registry.downloads.values()], [1, 1]);

  const list = await runVerdictInProcess(["agents", "list", "--home", scratch.path]);
  assert.equal(list.code, 0, list.stderr);
  const sha = sha256Hex(tarballs.binary);
  assert.match(list.stdout, new RegExp(`^codex +0\\.171\\.0 .* ${sha.slice(0, 12)} .* yes$`, "m"));
  const json = await runVerdictInProcess(["agents", "list", "--json", "--home", scratch.path]);
  const listed = JSON.parse(json.stdout);
  assert.deepEqual(
    listed.kits.map((kit: { agent: string; sha256: string; pinned: boolean }) => [
      kit.agent,
      kit.sha256,
      kit.pinned,
    ]),
    [["codex", sha, true]],
  );
  assert.deepEqual(listed.unfinished, []);
});

Deno.test("agents fetch: a tarball off its integrity exits 3 and stores nothing; an unknown version or agent exits 2", async () => {
  await using scratch = await scratchDir("agents");
  const tarballs = await kitTarballs(claude, "2.1.332");
  await using registry = fakeRegistry([
    tarballs.main,
    { ...tarballs.platform, integrity: integrityOf(tarballs.main.tarball) },
  ]);
  const home = ["--registry", registry.url, "--home", scratch.path];
  const mismatch = await runVerdictInProcess(["agents", "fetch", "claude-code", ...home]);
  assert.equal(mismatch.code, 3, mismatch.stderr);
  assert.match(mismatch.stderr, /claude-code-linux-.*does not match the registry's integrity/);
  const list = JSON.parse(
    (await runVerdictInProcess(["agents", "list", "--json", "--home", scratch.path])).stdout,
  );
  assert.deepEqual(list, { kits: [], unfinished: [] });

  const version = await runVerdictInProcess(["agents", "fetch", "claude-code@2.1.999", ...home]);
  assert.equal(version.code, 2);
  assert.match(version.stderr, /@anthropic-ai\/claude-code@2\.1\.999 is not in the registry/);
  assert.match(version.stderr, /npm view @anthropic-ai\/claude-code versions/);
  const agent = await runVerdictInProcess(["agents", "fetch", "aider", ...home]);
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /unknown installed agent 'aider'.*claude-code, codex/);
  const url = await runVerdictInProcess([
    "agents",
    "fetch",
    "codex",
    "--registry",
    "npmjs",
    "--home",
    scratch.path,
  ]);
  assert.equal(url.code, 2);
  assert.match(url.stderr, /--registry npmjs is not a URL/);
});

Deno.test("agents import stores a kit from tarballs; what is not an agent's tarball exits 2 naming the file", async () => {
  await using scratch = await scratchDir("agents");
  const tarballs = await kitTarballs(claude, "2.1.332");
  const platform = join(scratch.path, "anthropic-ai-claude-code-linux-x64-2.1.332.tgz");
  const main = join(scratch.path, "anthropic-ai-claude-code-2.1.332.tgz");
  await Deno.writeFile(platform, tarballs.platform.tarball);
  await Deno.writeFile(main, tarballs.main.tarball);
  const home = ["--home", join(scratch.path, "home")];

  const onlyMain = await runVerdictInProcess(["agents", "import", main, ...home]);
  assert.equal(onlyMain.code, 2);
  assert.match(
    onlyMain.stderr,
    /give also the platform package: npm pack @anthropic-ai\/claude-code-linux-/,
  );

  const imported = await runVerdictInProcess(["agents", "import", platform, main, ...home]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(
    imported.stdout,
    /^claude-code@2\.1\.332: imported into .*agents\/claude-code\/2\.1\.332; /,
  );
  const again = await runVerdictInProcess(["agents", "import", platform, ...home]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already present/);

  const text = join(scratch.path, "notes.tgz");
  await Deno.writeTextFile(text, "not a tarball\n");
  const other = join(scratch.path, "left-pad-1.3.0.tgz");
  await Deno.writeFile(other, await npmTarball("left-pad", "1.3.0"));
  for (const file of [text, other]) {
    const refused = await runVerdictInProcess(["agents", "import", file, ...home]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.ok(refused.stderr.startsWith(`verdict: ${file}:`), refused.stderr);
  }
});

Deno.test("a fetch killed while downloading leaves no kit: list reports its folder as unfinished", async () => {
  await using scratch = await scratchDir("agents");
  const tarballs = await kitTarballs(codex, "0.171.0");
  const key = `${tarballs.platform.name}@${tarballs.platform.version}`;
  {
    await using registry = fakeRegistry([tarballs.main, { ...tarballs.platform, hang: true }]);
    const child = verdictCommand([
      "agents",
      "fetch",
      "codex",
      "--registry",
      registry.url,
      "--home",
      scratch.path,
    ]).spawn();
    for (let waited = 0; !registry.downloads.has(key) && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(registry.downloads.has(key), "the platform tarball's download never started");
    child.kill("SIGKILL");
    await child.output();
  }
  const list = await runVerdictInProcess(["agents", "list", "--home", scratch.path]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^no kits in /);
  const partial = join(kitsFolder(scratch.path), ".partial-");
  assert.match(list.stdout, new RegExp(`unfinished .*: ${partial}\\w+; remove it`));
});

Deno.test("an outdated kit (stored before companion files): list exits 1 saying to fetch it, fetch and import replace it", async () => {
  await using scratch = await scratchDir("agents");
  const tarballs = await kitTarballs(codex, "0.171.0");
  await using registry = fakeRegistry([tarballs.main, tarballs.platform]);
  const home = ["--home", scratch.path];
  const fetch = ["agents", "fetch", "codex", "--registry", registry.url, ...home];
  assert.equal((await runVerdictInProcess(fetch)).code, 0);
  const kit = (await findKit(scratch.path, "codex", "0.171.0"))!;
  await makeOutdated(kit);

  const list = await runVerdictInProcess(["agents", "list", ...home]);
  assert.equal(list.code, 1, list.stderr);
  assert.match(list.stderr, /the kit in .*codex\/0\.171\.0 is outdated: .*verdict-kit\/1/);
  assert.match(list.stderr, /replace it with 'verdict agents fetch codex@0\.171\.0'/);

  const replaced = await runVerdictInProcess(fetch);
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.match(replaced.stdout, /^codex@0\.171\.0: stored in /);
  assert.deepEqual(await findKit(scratch.path, "codex", "0.171.0"), kit);

  await makeOutdated(kit);
  const platform = join(scratch.path, "openai-codex-0.171.0-linux-x64.tgz");
  await Deno.writeFile(platform, tarballs.platform.tarball);
  const imported = await runVerdictInProcess(["agents", "import", platform, ...home]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /^codex@0\.171\.0: imported into /);
  // An import records no registry integrity; the files are the same.
  const reimported = (await findKit(scratch.path, "codex", "0.171.0"))!;
  assert.deepEqual({ ...reimported, packages: [] }, { ...kit, packages: [] });
  const listed = await runVerdictInProcess(["agents", "list", "--json", ...home]);
  assert.deepEqual(JSON.parse(listed.stdout).unfinished, []);
});
