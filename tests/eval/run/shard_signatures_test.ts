/**
 * A merge cannot launder a forged shard: `merge` refuses a shard changed after it was signed, and
 * with `--trust` one not signed by a trusted key (exit 1, naming it); the merged run keeps each
 * shard's signer and is signed by the merge, and `verify --key` fails unless every shard and the
 * merge were signed by keys it is given, naming the shard that was not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { keyFingerprint, signBytes, signingKey } from "../../../src/core/ed25519.ts";
import { MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { MERGE_POINTS } from "../../../src/eval/run/merge_shards.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { PROJECT_ROOT, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";
import { dropSignatures, forgePass, signAgain } from "./_forged_record.ts";

const SEED = btoa("a".repeat(32));
const FORGER = btoa("f".repeat(32));
function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null;
  }
}

const TASKS = ["tasks/fix-slugify", "tasks/shell-count-errors"];

/** Shards 1/2 and 2/2 of a nop run over two tasks, in `root/shard-1` and `root/shard-2`. */
async function shards(root: string, seed?: string): Promise<string[]> {
  const homes = [join(root, "shard-1"), join(root, "shard-2")];
  for (const [index, home] of homes.entries()) {
    const sandbox = new MemorySandbox({
      exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
    });
    await runEval(
      { paths: TASKS, agent: "nop", home, shard: { index: index + 1, count: 2 } },
      { sandbox, ...(seed ? { signingKey: await signingKey(seed) } : {}) },
    );
  }
  return homes;
}

function runId(home: string): string {
  const db = new DatabaseSync(join(home, "verdict.db"));
  try {
    return (db.prepare("SELECT id FROM runs").get() as { id: string }).id;
  } finally {
    db.close();
  }
}

Deno.test("honest signed shards pass merge --trust and verify --key; the merged run lists each shard's signer", async () => {
  await using dir = await scratchDir("merge-signed");
  const key = await signingKey(SEED);
  const homes = await shards(dir.path, SEED);
  const target = join(dir.path, "merged");
  const merged = await runVerdictInProcess(
    ["merge", ...homes, "--trust", key.publicKey, "--home", target],
    { VERDICT_SIGNING_KEY: SEED },
  );
  assert.equal(merged.code, 0, merged.stderr);
  const id = runId(target);
  const verify = await runVerdictInProcess([
    "verify",
    id,
    "--home",
    target,
    "--key",
    key.publicKey,
  ]);
  assert.equal(verify.code, 0, verify.stdout);
  const fingerprint = keyFingerprint(key.publicKey);
  assert.match(verify.stdout, new RegExp(`intact: .*; signed by ${fingerprint}`));
  assert.match(verify.stdout, new RegExp(`shard 1/2: signed by ${fingerprint}`));
  assert.match(verify.stdout, new RegExp(`shard 2/2: signed by ${fingerprint}`));
  assert.match(verify.stdout, /What this proves: .* It cannot prove that the key holder/s);
  const json = JSON.parse(
    (await runVerdictInProcess(["verify", id, "--home", target, "--json"])).stdout,
  );
  assert.deepEqual(json.shards.map((shard: { state: string }) => shard.state), [
    "signed",
    "signed",
  ]);
  assert.match(json.proves, /whoever holds the key can write any record and sign it/);

  // The merge was made without a key of its own: every shard is trusted, the merge is not.
  const unsignedMerge = join(dir.path, "merged-unsigned");
  assert.equal((await runVerdictInProcess(["merge", ...homes, "--home", unsignedMerge])).code, 0);
  const notMerged = await runVerdictInProcess(
    ["verify", id, "--home", unsignedMerge, "--key", key.publicKey],
  );
  assert.equal(notMerged.code, 1, notMerged.stdout);
  assert.match(notMerged.stdout, /the record is unsigned, and --key asks for a signature by/);
});

Deno.test("a forged shard: refused by merge (changed after signing), by merge --trust (unsigned or another signer), and a merge of it fails verify --key naming the shard", async () => {
  await using dir = await scratchDir("merge-forged");
  const key = await signingKey(SEED);
  const forger = await signingKey(FORGER);
  const homes = await shards(dir.path, SEED);
  const merge = (name: string, ...extra: string[]) =>
    runVerdictInProcess(["merge", ...homes, "--home", join(dir.path, name), ...extra], {
      VERDICT_SIGNING_KEY: SEED,
    });

  // Rewritten, chain recomputed, signature kept: it no longer holds, with or without --trust.
  forgePass(homes[1]);
  const id = runId(homes[1]);
  const kept = await merge("kept");
  assert.equal(kept.code, 1, kept.stderr);
  assert.match(kept.stderr, /shard-2 \(run .*\) does not match its signature by .*: the shard was/);
  const shardAlone = await runVerdictInProcess(
    ["verify", id, "--home", homes[1], "--key", key.publicKey],
  );
  assert.equal(shardAlone.code, 1, shardAlone.stdout);

  // The forger drops the signature: --trust refuses; a merge without it is caught by verify --key.
  dropSignatures(homes[1]);
  const trusting = await merge("trusting", "--trust", key.publicKey);
  assert.equal(trusting.code, 1, trusting.stderr);
  assert.match(trusting.stderr, /shard-2 \(run .*\) is unsigned, and --trust takes only shards/);
  assert.equal((await merge("laundered")).code, 0);
  const laundered = await runVerdictInProcess(
    ["verify", id, "--home", join(dir.path, "laundered"), "--key", key.publicKey],
  );
  assert.equal(laundered.code, 1, laundered.stdout);
  assert.match(laundered.stdout, /shard 2\/2 is unsigned, and --key asks for a signature by/);
  assert.doesNotMatch(laundered.stdout, /shard 1\/2/);

  // The forger signs it with a key of their own: named, and not trusted.
  await signAgain(homes[1], forger);
  const other = await merge("other", "--trust", key.publicKey);
  assert.equal(other.code, 1, other.stderr);
  assert.ok(
    other.stderr.includes(
      `is signed by ${keyFingerprint(forger.publicKey)}, not by a trusted key (--trust ` +
        `${keyFingerprint(key.publicKey)})`,
    ),
    other.stderr,
  );
  assert.equal((await merge("resigned")).code, 0);
  const resigned = await runVerdictInProcess(
    ["verify", id, "--home", join(dir.path, "resigned"), "--key", key.publicKey],
  );
  assert.equal(resigned.code, 1, resigned.stdout);
  assert.match(
    resigned.stdout,
    new RegExp(`shard 2/2 is signed by ${keyFingerprint(forger.publicKey)}, not by`),
  );
  // Trusting both keys is the user's call, and then it verifies.
  const both = await runVerdictInProcess([
    "verify",
    id,
    "--home",
    join(dir.path, "resigned"),
    "--key",
    key.publicKey,
    "--key",
    forger.publicKey,
  ]);
  assert.equal(both.code, 0, both.stdout);
});

Deno.test("a merged run's recorded shard signature swapped for another shard's is forged, even without --key", async () => {
  await using dir = await scratchDir("merge-swapped");
  const homes = await shards(dir.path, SEED);
  const target = join(dir.path, "merged");
  assert.equal((await runVerdictInProcess(["merge", ...homes, "--home", target])).code, 0);
  const db = new DatabaseSync(join(target, "verdict.db"));
  db.exec(
    "UPDATE shard_signatures SET statement = (SELECT statement FROM shard_signatures WHERE " +
      "shard_index = 1), signature = (SELECT signature FROM shard_signatures WHERE " +
      "shard_index = 1) WHERE shard_index = 2",
  );
  db.close();
  const verify = await runVerdictInProcess(["verify", runId(target), "--home", target]);
  assert.equal(verify.code, 1, verify.stdout);
  assert.match(
    verify.stdout,
    /shard 2\/2 does not match its signature by .*signed as another shard/,
  );
});

Deno.test("--trust and --key refuse what is not a public key (exit 2, naming the flag)", async () => {
  await using dir = await scratchDir("merge-key-flags");
  const homes = await shards(dir.path);
  const merge = await runVerdictInProcess(
    ["merge", ...homes, "--trust", "ed25519:0011", "--home", join(dir.path, "m")],
  );
  assert.equal(merge.code, 2, merge.stderr);
  assert.match(merge.stderr, /--trust ed25519:0011 is not a public key/);
  const verify = await runVerdictInProcess(
    ["verify", runId(homes[0]), "--home", homes[0], "--key", "short"],
  );
  assert.equal(verify.code, 2, verify.stderr);
  assert.match(verify.stderr, /--key short is not a public key/);
});

/** Runs `_merge_until.ts` and kills it with SIGKILL when it reaches `point`. */
async function mergeKilledAt(point: string, target: string, homes: string[]): Promise<void> {
  const child = new Deno.Command("deno", {
    args: ["run", "-P=verdict", "--quiet", join(PROJECT_ROOT, "tests/eval/run/_merge_until.ts")]
      .concat([point, target, ...homes]),
    cwd: PROJECT_ROOT,
    env: { VERDICT_SIGNING_KEY: SEED },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let seen = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    seen += chunk;
    if (seen.includes(`at ${point}\n`)) {
      child.kill("SIGKILL");
      break;
    }
  }
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", `the merge ended before ${point}: ${seen}`);
}

Deno.test("merge killed at each of its ten steps, then run again: the same signed run with its files; no step leaves a run that verifies with files missing", async () => {
  await using dir = await scratchDir("merge-killed");
  const key = await signingKey(SEED);
  const homes = await shards(dir.path, SEED);
  const reference = join(dir.path, "reference");
  const whole = await runVerdictInProcess(["merge", ...homes, "--home", reference], {
    VERDICT_SIGNING_KEY: SEED,
  });
  assert.equal(whole.code, 0, whole.stderr);
  const id = runId(reference);
  const results = (home: string) => Deno.readTextFile(join(home, "runs", id, "results.json"));
  const expected = await results(reference);

  await Promise.all(MERGE_POINTS.map(async (point) => {
    const target = join(dir.path, point);
    await mergeKilledAt(point, target, homes);
    const files = ["results.json", "report.md", "report.html"].filter((name) =>
      statOrNull(join(target, "runs", id, name)) !== null
    );
    const early = await runVerdictInProcess(["verify", id, "--home", target]);
    if (early.code === 0) assert.equal(files.length, 3, `${point}: intact with ${files}`);
    const again = await runVerdictInProcess(["merge", ...homes, "--home", target], {
      VERDICT_SIGNING_KEY: SEED,
    });
    assert.equal(again.code, 0, `${point}: ${again.stderr}`);
    const verify = await runVerdictInProcess(
      ["verify", id, "--home", target, "--key", key.publicKey],
    );
    assert.equal(verify.code, 0, `${point}: ${verify.stdout}`);
    assert.equal(await results(target), expected, `${point}: the same merged run`);
  }));
});

function tamper(home: string, sql: string): void {
  const db = new DatabaseSync(join(home, "verdict.db"));
  db.exec(sql);
  db.close();
}

Deno.test("merging again over a tampered merged run refuses it and signs nothing; verify catches each tampering", async () => {
  await using dir = await scratchDir("merge-again");
  const key = await signingKey(SEED);
  const homes = await shards(dir.path, SEED);
  const tamperings = {
    "shards-dropped": "DELETE FROM shard_signatures",
    "trial-hidden": "UPDATE sessions SET status = 'running' WHERE rowid = 1",
    "result-edited": "UPDATE sessions SET result = json_set(result, '$.task', 'renamed')",
  };
  await Promise.all(
    Object.entries(tamperings).map(async ([name, sql]) => {
      const target = join(dir.path, name);
      const merge = () =>
        runVerdictInProcess(["merge", ...homes, "--home", target], { VERDICT_SIGNING_KEY: SEED });
      assert.equal((await merge()).code, 0);
      const id = runId(target);
      tamper(target, sql);
      const again = await merge();
      assert.equal(again.code, 2, `${name}: ${again.stderr}`);
      assert.match(again.stderr, /already holds run/);
      const verify = await runVerdictInProcess(
        ["verify", id, "--home", target, "--key", key.publicKey],
      );
      assert.equal(verify.code, 1, `${name}: ${verify.stdout}`);
    }),
  );
});

Deno.test("an unsigned merge still answers for its shards: results edited outside the chain, a shard row dropped, or a statement that is not one fail verify", async () => {
  await using dir = await scratchDir("merge-unsigned-checks");
  const homes = await shards(dir.path, SEED);
  const merged = async (name: string) => {
    const target = join(dir.path, name);
    assert.equal((await runVerdictInProcess(["merge", ...homes, "--home", target])).code, 0);
    return target;
  };
  const verify = async (target: string) => {
    const result = await runVerdictInProcess(["verify", runId(target), "--home", target]);
    assert.equal(result.code, 1, result.stdout);
    return result.stdout;
  };
  const edited = await merged("edited");
  tamper(edited, "UPDATE sessions SET result = json_set(result, '$.task', 'renamed')");
  assert.match(await verify(edited), /results are not what the shard's signer signed/);

  const dropped = await merged("dropped");
  tamper(dropped, "DELETE FROM shard_signatures WHERE shard_index = 2");
  assert.match(await verify(dropped), /shard 2\/2 is not recorded/);

  // A forger signs garbage with their own key: a forged shard, not an internal error.
  const garbage = await merged("garbage");
  const forger = await signingKey(FORGER);
  const text = "not json";
  const signature = await signBytes(forger, new TextEncoder().encode(text));
  tamper(
    garbage,
    `UPDATE shard_signatures SET statement = '${text}', public_key = '${forger.publicKey}', ` +
      `signature = '${signature}' WHERE shard_index = 1`,
  );
  assert.match(await verify(garbage), /shard 1\/2 does not match .*not a run statement/);
});
