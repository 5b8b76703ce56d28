/**
 * Signed runs: a run recorded with `VERDICT_SIGNING_KEY` is signed when it ends; `verify` names its
 * signer, and fails (exit 1) a record changed after it was signed, even with its hash chain and
 * results recomputed, and a run signed by another key than `--key` (naming both fingerprints) or
 * not signed at all. A malformed key is refused before anything runs (exit 2, naming the
 * variable).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { keyFingerprint, type SigningKey, signingKey } from "../../../src/core/ed25519.ts";
import { MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { resumeEval } from "../../../src/library/recorded_runs.ts";
import { scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";
import { forgePass } from "./_forged_record.ts";

const SEED = btoa("a".repeat(32));
const OTHER = btoa("b".repeat(32));

async function signedRun(home: string, key?: string) {
  const sandbox = new MemorySandbox({
    exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
  });
  const { run } = await runEval(
    { paths: ["tasks/fix-slugify"], agent: "nop", home },
    { sandbox, ...(key ? { signingKey: await signingKey(key) } : {}) },
  );
  return run.id;
}

Deno.test("a signed run names its signer; a forged record, another key or no signature fails verify --key", async () => {
  await using dir = await scratchDir("signed");
  const key = await signingKey(SEED);
  const other = await signingKey(OTHER);
  const run = await signedRun(dir.path, SEED);
  const verify = (...extra: string[]) =>
    runVerdictInProcess(["verify", run, "--home", dir.path, ...extra]);

  const signed = await verify();
  assert.equal(signed.code, 0, signed.stdout);
  assert.match(signed.stdout, new RegExp(`intact: .*; signed by ${keyFingerprint(key.publicKey)}`));
  assert.equal((await verify("--key", key.publicKey)).code, 0);
  const wrong = await verify("--key", other.publicKey);
  assert.equal(wrong.code, 1, wrong.stdout);
  assert.ok(
    wrong.stdout.includes(
      `signed by ${keyFingerprint(key.publicKey)}, not by ${keyFingerprint(other.publicKey)}`,
    ),
    wrong.stdout,
  );

  // A forger without the key: the chain, the summary and the files all agree again.
  forgePass(dir.path);
  assert.equal((await runVerdictInProcess(["report", run, "--home", dir.path])).code, 0);
  const forged = await verify();
  assert.equal(forged.code, 1, forged.stdout);
  assert.match(
    forged.stdout,
    new RegExp(`does not match its signature by ${keyFingerprint(key.publicKey)}: it was changed`),
  );
});

Deno.test("an unsigned run verifies as unsigned, and fails --key; a malformed key is refused before the run", async () => {
  await using dir = await scratchDir("unsigned");
  const run = await signedRun(dir.path);
  const plain = await runVerdictInProcess(["verify", run, "--home", dir.path]);
  assert.equal(plain.code, 0, plain.stdout);
  assert.match(plain.stdout, /; unsigned \(no signing key when it was recorded\)/);
  const key = (await signingKey(SEED)).publicKey;
  const asked = await runVerdictInProcess(["verify", run, "--home", dir.path, "--key", key]);
  assert.equal(asked.code, 1);
  assert.match(asked.stdout, /the record is unsigned, and --key asks for a signature by ed25519:/);

  const bad = await runVerdictInProcess(
    ["eval", "tasks/fix-slugify", "--agent", "nop", "--home", join(dir.path, "bad")],
    { VERDICT_SIGNING_KEY: "not-a-key!" },
  );
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /VERDICT_SIGNING_KEY holds no Ed25519 signing key: it is not base64/);
  assert.equal(await Deno.stat(join(dir.path, "bad")).then(() => true, () => false), false);
});

Deno.test("a signed run resumed without the key is unsigned, not taken for a forgery; resumed with it, signed again", async () => {
  await using dir = await scratchDir("resigned");
  const key = await signingKey(SEED);
  const run = await signedRun(dir.path, SEED);
  const sandbox = new MemorySandbox({
    exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
  });
  const resume = (signingKey?: SigningKey) =>
    resumeEval(dir.path, run, { sandbox, ...(signingKey ? { signingKey } : {}) });
  await resume();
  const unsigned = await runVerdictInProcess(["verify", run, "--home", dir.path]);
  assert.equal(unsigned.code, 0, unsigned.stdout);
  assert.match(unsigned.stdout, /; unsigned/);
  await resume(key);
  const again = await runVerdictInProcess([
    "verify",
    run,
    "--home",
    dir.path,
    "--key",
    key.publicKey,
  ]);
  assert.equal(again.code, 0, again.stdout);
});
