/**
 * Which key signs: VERDICT_SIGNING_KEY first; else your key file, made on first use where only you
 * can read it, when the command's permissions name its folder; nothing when they do not; and a
 * clear refusal (exit 2, naming the file or the permission) for a malformed or exposed key file or
 * permissions that reach the folder only in part, never a Deno permission error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { signingKey } from "../../src/core/ed25519.ts";
import { UsageError } from "../../src/core/errors.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { signingKeyFor } from "../../src/cli/signing_key.ts";
import { PROJECT_ROOT, scratchDir } from "../_verdict.ts";

async function outsideDir() {
  const path = await Deno.makeTempDir({ prefix: "verdict-key-home-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const SEED = btoa("a".repeat(32));
const everywhere = () => true;

Deno.test("your key is made on first use, mode 600 in a folder of mode 700, and used again after", async () => {
  await using home = await scratchDir("key-home");
  const io = memoryIo({ HOME: home.path }, everywhere);
  const first = await signingKeyFor(io);
  const file = join(home.path, ".config", "verdict", "signing-key");
  assert.ok(first);
  assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
  assert.equal(Deno.statSync(join(home.path, ".config", "verdict")).mode! & 0o777, 0o700);
  assert.match(io.stderr(), new RegExp(`made your signing key ${file} .*${first.publicKey}`));
  const again = memoryIo({ HOME: home.path }, everywhere);
  assert.equal((await signingKeyFor(again))?.publicKey, first.publicKey);
  assert.equal(again.stderr(), "");
  assert.deepEqual(
    [...Deno.readDirSync(join(home.path, ".config", "verdict"))].map((entry) => entry.name),
    ["signing-key"],
  );
  // VERDICT_SIGNING_KEY comes first.
  const ci = memoryIo({ HOME: home.path, VERDICT_SIGNING_KEY: SEED }, everywhere);
  assert.equal((await signingKeyFor(ci))?.publicKey, (await signingKey(SEED)).publicKey);
});

Deno.test("permissions that do not name your key folder sign nothing; ones that reach it in part are refused naming the flag", async () => {
  await using home = await scratchDir("key-reach");
  const folder = join(home.path, ".config", "verdict");
  assert.equal(await signingKeyFor(memoryIo({ HOME: home.path })), undefined);
  assert.equal(await signingKeyFor(memoryIo({})), undefined);
  const readOnly = memoryIo({ HOME: home.path }, (access) => access === "read");
  await assert.rejects(
    () => signingKeyFor(readOnly),
    (error: Error) =>
      error instanceof UsageError && error.message.includes(`add --allow-write=${folder}`),
  );
  const writeOnly = memoryIo({ HOME: home.path }, (access) => access === "write");
  await assert.rejects(() => signingKeyFor(writeOnly), /add --allow-read=/);
  assert.throws(() => Deno.statSync(folder), Deno.errors.NotFound);
});

Deno.test("a key file that is not a key, that others can read, or in a folder others can write, is refused naming it", async () => {
  await using home = await scratchDir("key-bad");
  const folder = join(home.path, ".config", "verdict");
  const file = join(folder, "signing-key");
  Deno.mkdirSync(folder, { recursive: true });
  Deno.writeTextFileSync(file, "not a key\n", { mode: 0o600 });
  const io = memoryIo({ HOME: home.path }, everywhere);
  await assert.rejects(
    () => signingKeyFor(io),
    new RegExp(`${file} holds no Ed25519 signing key: .*or remove it and a new key is made`),
  );
  Deno.writeTextFileSync(file, SEED);
  Deno.chmodSync(file, 0o640);
  await assert.rejects(() => signingKeyFor(io), /can be read by other users \(mode 640\)/);
  Deno.chmodSync(file, 0o600);
  Deno.chmodSync(folder, 0o777);
  await assert.rejects(
    () => signingKeyFor(io),
    new RegExp(`${folder} can be written by other users \\(mode 777\\).*chmod 700`),
  );
  Deno.chmodSync(folder, 0o700);
  assert.ok(await signingKeyFor(io), "a private folder and file: the key is used");
});

Deno.test("the CLI under permissions that read your key folder but may not write it: exit 2 naming --allow-write, before anything runs", async () => {
  // A home outside the project, so that writing "." does not reach it.
  await using home = await outsideDir();
  await using scratch = await scratchDir("key-cli");
  const folder = join(home.path, ".config", "verdict");
  const state = join(scratch.path, "state");
  const output = await new Deno.Command("deno", {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--allow-read=.,${folder}`,
      "--allow-write=.",
      "--allow-env",
      "--allow-run=docker",
      join(PROJECT_ROOT, "cli.ts"),
      "eval",
      "tasks/fix-slugify",
      "--agent",
      "nop",
      "--home",
      state,
    ],
    cwd: PROJECT_ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home.path,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
      NO_COLOR: "1",
    },
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 2, stderr);
  assert.ok(stderr.includes(`Fix: add --allow-write=${folder}`), stderr);
  assert.doesNotMatch(stderr, /NotCapable|PermissionDenied|Requires/);
  assert.throws(() => Deno.statSync(state), Deno.errors.NotFound);
});
