/**
 * `verdict verify RUN`: check the database file's pages, recompute every hash chain and blob hash
 * of a run, and compare the run's derived files with the record.
 *
 * @module
 */
import { join } from "node:path";
import { CorruptionError, ExitCode } from "../../core/errors.ts";
import { eventBlobReferences } from "../../eval/run/event_references.ts";
import { type DerivedFileProblem, derivedFileProblems } from "../../report/derived_files.ts";
import { keyFingerprint } from "../../core/ed25519.ts";
import { checkRunSignature, type SignatureCheck } from "../../eval/run/run_signature.ts";
import { checkShardSignatures, type ShardCheck } from "../../eval/run/shard_signatures.ts";
import { DamagedStoreError } from "../../store/damaged_store.ts";
import { pageProblems } from "../../store/integrity.ts";
import type { Store } from "../../store/store.ts";
import { describeProblem, type VerifyReport, verifyRun } from "../../store/verify.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import type { Io } from "../io.ts";
import { publicKeysOption } from "../public_key_option.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** What `verify` proves and what it cannot, in one paragraph (also in docs/commands.md). */
const THREAT_MODEL =
  "What this proves: the hash chains catch a record damaged by accident, but anyone who can\n" +
  "write verdict.db can rewrite events and recompute them. A signature stops that: without the\n" +
  "signer's private key nobody can change a signed run (its events, verdicts, configuration or\n" +
  "results), forge or swap a shard of a merged run, or pass a run off as signed by a key given\n" +
  "to --key, without this check failing. It cannot prove that the key holder ran the experiment\n" +
  "honestly: whoever holds the key can write any record and sign it. An unsigned run proves\n" +
  "nothing about who wrote it. Trust a run as far as you trust every key it names.";

/** The `verify` command. */
export const verifyCommand: Command = {
  name: "verify",
  summary:
    "recompute every hash chain, root and blob hash of a run and check its signature; report corruption",
  args: "RUN",
  options: {
    key: {
      type: "string",
      multiple: true,
      valueName: "PUB",
      description:
        "fail unless the run (and each shard of a merged run) is signed by this public key (repeatable)",
    },
    ...HOME_OPTION,
    ...JSON_OPTION,
  },
  positionals: { min: 1, max: 1 },
  details: "Also checks the database file's pages (SQLite quick_check) and that the run's\n" +
    "results.json and report.md match the record ('verdict report RUN' rebuilds them).\n" +
    "Names the run's signer (and a merged run's shards' signers) or says it is unsigned;\n" +
    "--key PUB fails a run, or a shard of it, not signed by one of the keys given. Exits 0\n" +
    "when all is intact, 1 naming the first damaged page, event, blob or file, or the\n" +
    "signature that fails.\n\n" + THREAT_MODEL,
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    let store: Store;
    try {
      store = openExistingStore(home);
    } catch (error) {
      if (!(error instanceof DamagedStoreError)) throw error;
      return damaged(io, values.json === true, positionals[0], error, [error.detail]);
    }
    try {
      const pages = pageProblems(store);
      if (pages.length > 0) {
        const error = new DamagedStoreError(store.path, pages[0]);
        return damaged(io, values.json === true, positionals[0], error, pages);
      }
      const run = findRun(store, positionals[0]);
      const report = verifyOrDamage(store, run.id);
      // The files are compared only with an intact record, and not while the run is still going
      // (or was resumed and killed): such a run has not written them for its last state.
      const derived: DerivedFileProblem[] = report.problems.length > 0 || run.status === "running"
        ? []
        : await derivedFileProblems(store, run, join(home, "runs", run.id));
      const keys = publicKeysOption(values, "key");
      // A damaged record is the answer already; its signatures are not read from damaged rows.
      const damagedRecord = report.problems.length > 0;
      const signature: SignatureCheck = damagedRecord
        ? { state: "unsigned" }
        : await checkRunSignature(store, run);
      const { shards, gaps } = damagedRecord
        ? { shards: [], gaps: [] }
        : await checkShardSignatures(store, run);
      const untrusted = [
        ...gaps.map((gap) => `the merged run does not match its shards: ${gap}`),
        ...signatureProblems(signature, shards, keys),
      ];
      const intact = report.problems.length === 0 && derived.length === 0 &&
        untrusted.length === 0;
      if (values.json) {
        const output = {
          ...report,
          derived,
          signature,
          shards,
          gaps,
          intact,
          proves: THREAT_MODEL,
        };
        io.out(JSON.stringify(output, null, 2) + "\n");
        return intact ? ExitCode.yes : ExitCode.no;
      }
      if (intact) {
        io.out(
          `run ${run.id} intact: ${report.sessions} sessions, ${report.events} events and ` +
            `${report.blobs} blobs verified; ${signatureLine(signature)}\n`,
        );
        for (const shard of shards) io.out(`  shard ${shard.shard}: ${signatureLine(shard)}\n`);
      } else if (report.problems.length > 0) {
        const [first, ...rest] = report.problems;
        io.out(`run ${run.id} is corrupt: ${describeProblem(first)}\n`);
        if (rest.length > 0) io.out(`(${rest.length} more problems follow from it or elsewhere)\n`);
      } else {
        for (const problem of derived) {
          io.out(`run ${run.id}: ${problem.file} is not what the record says: ${problem.what}\n`);
        }
        for (const problem of untrusted) io.out(`run ${run.id}: ${problem}\n`);
      }
      io.out(`\n${THREAT_MODEL}\n`);
      return intact ? ExitCode.yes : ExitCode.no;
    } finally {
      store.close();
    }
  },
};

/** What a signature means, in words. */
function signatureLine(signature: SignatureCheck | ShardCheck): string {
  return signature.state === "unsigned"
    ? "unsigned (no signing key when it was recorded): nothing says who wrote it"
    : `signed by ${signature.signer} (public key ${signature.publicKey})`;
}

/** Why the signatures fail the check asked for: forged always, and unsigned or untrusted with --key. */
function signatureProblems(
  signature: SignatureCheck,
  shards: readonly ShardCheck[],
  keys: readonly string[] | undefined,
): string[] {
  const problems: string[] = [];
  const trusted = keys?.map(keyFingerprint).join(", ");
  const check = (name: string, what: SignatureCheck | ShardCheck) => {
    if (what.state === "forged") {
      const why = "why" in what && what.why ? ` (${what.why})` : "";
      problems.push(
        `${name} does not match its signature by ${what.signer}: it was changed after it was ` +
          `signed${why}`,
      );
    } else if (keys === undefined) return;
    else if (what.state === "unsigned") {
      problems.push(`${name} is unsigned, and --key asks for a signature by ${trusted}`);
    } else if (!keys.includes(what.publicKey!)) {
      problems.push(`${name} is signed by ${what.signer}, not by ${trusted} (--key)`);
    }
  };
  check("the record", signature);
  for (const shard of shards) check(`shard ${shard.shard}`, shard);
  return problems;
}

/** The run's verification; a row too damaged to read at all is its one problem. */
function verifyOrDamage(store: Store, run: string): VerifyReport {
  try {
    return verifyRun(store, run, eventBlobReferences(store.blobs));
  } catch (error) {
    if (!(error instanceof CorruptionError) || error instanceof DamagedStoreError) throw error;
    return {
      run,
      sessions: 0,
      events: 0,
      blobs: 0,
      problems: [{ session: "-", what: error.message }],
    };
  }
}

function damaged(
  io: Io,
  json: boolean,
  run: string,
  { path, fix }: DamagedStoreError,
  findings: string[],
): number {
  if (json) {
    const database = { path, problems: findings, fix };
    io.out(JSON.stringify({ run, intact: false, database }, null, 2) + "\n");
  } else {
    io.out(
      findings.length === 1
        ? `the state database ${path} is damaged: ${findings[0]}\n`
        : `the state database ${path} is damaged; SQLite finds:\n` +
          findings.map((finding) => `  ${finding}\n`).join(""),
    );
    io.out(`Fix: ${fix}\n`);
  }
  return ExitCode.no;
}
