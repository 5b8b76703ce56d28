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
import { DamagedStoreError } from "../../store/damaged_store.ts";
import { pageProblems } from "../../store/integrity.ts";
import type { Store } from "../../store/store.ts";
import { describeProblem, type VerifyReport, verifyRun } from "../../store/verify.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import type { Io } from "../io.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `verify` command. */
export const verifyCommand: Command = {
  name: "verify",
  summary:
    "recompute every hash chain, root and blob hash of a run and check its signature; report corruption",
  args: "RUN",
  options: {
    key: {
      type: "string",
      valueName: "PUB",
      description: "fail unless the run is signed by this public key (base64url, as verify prints)",
    },
    ...HOME_OPTION,
    ...JSON_OPTION,
  },
  positionals: { min: 1, max: 1 },
  details: "Also checks the database file's pages (SQLite quick_check) and that the run's\n" +
    "results.json and report.md match the record ('verdict report RUN' rebuilds them).\n" +
    "Names the run's signer (runs are signed when VERDICT_SIGNING_KEY is set) or says it is\n" +
    "unsigned; --key PUB fails a run not signed by that key. Exits 0 when all is intact, 1\n" +
    "naming the first damaged page, event, blob or file, or the signature that fails.",
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
      const signature = await checkRunSignature(store, run);
      const untrusted = signatureProblem(signature, values.key as string | undefined);
      const intact = report.problems.length === 0 && derived.length === 0 &&
        untrusted === undefined;
      if (values.json) {
        io.out(JSON.stringify({ ...report, derived, signature, intact }, null, 2) + "\n");
      } else if (intact) {
        io.out(
          `run ${run.id} intact: ${report.sessions} sessions, ${report.events} events and ` +
            `${report.blobs} blobs verified; ${signatureLine(signature)}\n`,
        );
      } else if (report.problems.length === 0 && derived.length === 0) {
        io.out(`run ${run.id}: ${untrusted}\n`);
      } else if (report.problems.length > 0) {
        const [first, ...rest] = report.problems;
        io.out(`run ${run.id} is corrupt: ${describeProblem(first)}\n`);
        if (rest.length > 0) io.out(`(${rest.length} more problems follow from it or elsewhere)\n`);
      } else {
        for (const problem of derived) {
          io.out(`run ${run.id}: ${problem.file} is not what the record says: ${problem.what}\n`);
        }
      }
      return intact ? ExitCode.yes : ExitCode.no;
    } finally {
      store.close();
    }
  },
};

/** What the signature means, in words. */
function signatureLine(signature: SignatureCheck): string {
  return signature.state === "unsigned"
    ? "unsigned (no VERDICT_SIGNING_KEY when it was recorded): nothing says who wrote it"
    : `signed by ${signature.signer} (public key ${signature.publicKey})`;
}

/** Why the signature fails the check asked for, if it does. */
function signatureProblem(signature: SignatureCheck, key: string | undefined): string | undefined {
  if (signature.state === "forged") {
    return `the record does not match its signature by ${signature.signer}: it was changed ` +
      "after it was signed";
  }
  if (key === undefined) return undefined;
  if (signature.state === "unsigned") {
    return `it is unsigned, and --key asks for a run signed by ${keyFingerprint(key)}`;
  }
  if (signature.publicKey !== key) {
    return `it is signed by ${signature.signer}, not by ${keyFingerprint(key)} (--key)`;
  }
  return undefined;
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
