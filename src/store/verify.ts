/**
 * Tamper evidence: recompute every session's hash chain and every referenced blob's hash of a run,
 * and name the first thing that does not match.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { CorruptionError } from "../core/errors.ts";
import { isSha256Hex } from "../core/hash.ts";
import { eventHash, type EventRow, genesisHash } from "./event_log.ts";
import { EVENT } from "./event_catalogue.ts";
import { CHAINED_SUMMARY_FIELDS, type SessionRecord } from "./run_table.ts";
import type { TrialSummary } from "./trial_record.ts";
import type { Store } from "./store.ts";

/** One thing verification found wrong. */
export interface VerifyProblem {
  /** The session where it was found. */
  session: string;
  /** The event's sequence number, when the problem is in an event. */
  seq?: number;
  /** The blob's hash, when the problem is in a blob. */
  blob?: string;
  /** What differs. */
  what: string;
}

/** What verification checked and found. */
export interface VerifyReport {
  /** The run verified. */
  run: string;
  /** Sessions checked. */
  sessions: number;
  /** Events checked. */
  events: number;
  /** Distinct blobs checked. */
  blobs: number;
  /** Problems, in the order found; empty when intact. */
  problems: VerifyProblem[];
}

/** Something that can name extra blobs an event's payload refers to (such as a sealed snapshot). */
export type BlobReferences = (kind: string, payload: Record<string, unknown>) => string[];

/**
 * Verifies a run: per session, sequence numbers run from 0 without gaps, every event chains from
 * the one before, every recomputed hash equals the stored one, a finished session's pinned head
 * names its last event, that last event is the verdict event and agrees with the stored result, the
 * summary columns that statistics read agree with the result, and every referenced blob re-hashes
 * to its key. (The log of an unfinished session may end anywhere: a crash leaves exactly that.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { verifyRun } from "./verify.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * store.events.append("s1", [{ kind: "start", payload: { n: 1 } }]);
 * assert(verifyRun(store, "r1").problems.length === 0);
 * store.close();
 * ```
 */
export function verifyRun(
  store: Store,
  run: string,
  extraReferences: BlobReferences = () => [],
): VerifyReport {
  const report: VerifyReport = { run, sessions: 0, events: 0, blobs: 0, problems: [] };
  const checkedBlobs = new Set<string>();
  const checkBlob = (session: string, seq: number, hash: string) => {
    if (checkedBlobs.has(hash)) return;
    checkedBlobs.add(hash);
    const problem = blobProblem(store, hash);
    if (problem !== undefined) report.problems.push({ session, seq, blob: hash, what: problem });
  };
  const summaries = new Map(
    store.runs.trialSummaries(run).map((
      summary,
    ) => [`${summary.task}\0${summary.repeat}`, summary]),
  );
  const lastAttempts = new Set(store.runs.sessions(run).map((session) => session.id));
  const endings = new Map<string, Ending>();
  for (const session of store.runs.attempts(run)) {
    report.sessions++;
    const { first, last, expectedSeq, prevHash } = walkChain(
      store,
      session,
      report,
      (seq, hash) => checkBlob(session.id, seq, hash),
      extraReferences,
    );
    const finished = session.status === "finished";
    if (finished && (session.headSeq !== expectedSeq - 1 || session.headHash !== prevHash)) {
      report.problems.push({
        session: session.id,
        what: `the session head names event ${session.headSeq} (${session.headHash}) but the log ` +
          `ends at event ${expectedSeq - 1} (${prevHash})`,
      });
    }
    if (finished) {
      // Statistics read the summary columns of a trial's last attempt only.
      const summary = lastAttempts.has(session.id)
        ? summaries.get(`${session.task}\0${session.repeat}`)
        : null;
      for (const what of resultProblems(session, last, summary)) {
        report.problems.push({ session: session.id, what });
      }
    }
    endings.set(session.id, {
      session,
      bucket: last?.kind === EVENT.trialVerdict ? chainedPayload(last.payload)?.bucket : undefined,
    });
    const retried = retryProblem(session, first, endings);
    if (retried !== undefined) report.problems.push({ session: session.id, what: retried });
  }
  report.blobs = checkedBlobs.size;
  return report;
}

const SUMMARY_FIELDS = [...CHAINED_SUMMARY_FIELDS, "duration_ms"] as const;

// One session's log: gapless sequence numbers, each event chained to and hashing as recorded.
function walkChain(
  store: Store,
  session: SessionRecord,
  report: VerifyReport,
  checkBlob: (seq: number, hash: string) => void,
  extraReferences: BlobReferences,
): { first?: EventRow; last?: EventRow; expectedSeq: number; prevHash: string } {
  let expectedSeq = 0;
  let prevHash = genesisHash(session.id);
  let first: EventRow | undefined;
  let last: EventRow | undefined;
  for (const row of store.events.rows(session.id)) {
    first ??= row;
    last = row;
    report.events++;
    const at = { session: session.id, seq: row.seq };
    if (row.seq !== expectedSeq) {
      report.problems.push({
        ...at,
        what: `expected event ${expectedSeq} next but found event ${row.seq} (an event is missing)`,
      });
    }
    if (row.prevHash !== prevHash) {
      report.problems.push({
        ...at,
        what: `prev_hash is ${row.prevHash} but the event before hashes to ${prevHash}`,
      });
    }
    const recomputed = eventHash(row);
    if (recomputed !== row.hash) {
      report.problems.push({
        ...at,
        what: `stored hash ${row.hash} but the event's content hashes to ${recomputed}`,
      });
    }
    for (const hash of referencedBlobs(row.refs, row.payload, row.kind, extraReferences)) {
      checkBlob(row.seq, hash);
    }
    expectedSeq = row.seq + 1;
    prevHash = row.hash;
  }
  return { first, last, expectedSeq, prevHash };
}

// How an attempt ended, by its chained verdict event.
interface Ending {
  session: SessionRecord;
  bucket: unknown;
}

/**
 * A later attempt of a trial must say, in its chain, which attempt it retries, and that attempt
 * must have ended in an infrastructure error by its own chain: a failure the agent earned cannot
 * be hidden behind a retry.
 */
function retryProblem(
  session: SessionRecord,
  first: EventRow | undefined,
  endings: Map<string, Ending>,
): string | undefined {
  if (session.retry === 0 || first === undefined) return undefined; // not a retry, or not begun
  const started = first.kind === EVENT.trialStarted ? chainedPayload(first.payload) : undefined;
  const retryOf = started?.retry_of;
  if (typeof retryOf !== "string") {
    return `attempt ${session.retry} of its trial does not name the attempt it retries ` +
      `(its first event must be ${EVENT.trialStarted} with retry_of)`;
  }
  const retried = endings.get(retryOf);
  if (
    retried === undefined || retried.session.task !== session.task ||
    retried.session.repeat !== session.repeat || retried.session.retry !== session.retry - 1
  ) {
    return `attempt ${session.retry} retries session ${retryOf}, which is not the attempt ` +
      `before it of the same trial in this run`;
  }
  const { bucket } = retried;
  if (bucket !== "infrastructure_error") {
    return `attempt ${session.retry} retries session ${retryOf}, whose chained verdict is ` +
      `${bucket === undefined ? "missing" : `'${bucket}'`}, not an infrastructure error: only ` +
      `those are retried`;
  }
  return undefined;
}

/** A finished session's result against its chained verdict event and its summary columns. */
function resultProblems(
  session: SessionRecord,
  last: EventRow | undefined,
  summary: TrialSummary | undefined | null,
): string[] {
  const result = session.result;
  if (result === null) return ["the session is finished but has no result"];
  const problems: string[] = [];
  if (last?.kind !== EVENT.trialVerdict) {
    problems.push(`the log of a finished session must end with a ${EVENT.trialVerdict} event`);
  } else {
    const chained = chainedPayload(last.payload);
    if (chained === undefined) {
      problems.push(
        `the payload of the ${EVENT.trialVerdict} event (event ${last.seq}) is not JSON`,
      );
    } else {
      for (const field of CHAINED_SUMMARY_FIELDS) {
        if (canonicalJson(chained[field] ?? null) !== canonicalJson(result[field] ?? null)) {
          problems.push(
            `the stored result's ${field} is ${canonicalJson(result[field] ?? null)} but the ` +
              `chained ${EVENT.trialVerdict} event (event ${last.seq}) says ${
                canonicalJson(chained[field] ?? null)
              }`,
          );
        }
      }
    }
  }
  for (const field of summary === null ? [] : SUMMARY_FIELDS) {
    const column = summary?.[field];
    if (canonicalJson(column ?? null) !== canonicalJson(result[field] ?? null)) {
      problems.push(
        `the summary column ${field} is ${canonicalJson(column ?? null)} but the stored result ` +
          `says ${canonicalJson(result[field] ?? null)}`,
      );
    }
  }
  return problems;
}

function chainedPayload(payload: unknown): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(String(payload));
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

function referencedBlobs(
  refsJson: string,
  payloadJson: string,
  kind: string,
  extra: BlobReferences,
): string[] {
  const hashes: string[] = [];
  try {
    hashes.push(...Object.values(JSON.parse(refsJson) as Record<string, string>));
    hashes.push(...extra(kind, JSON.parse(payloadJson)));
  } catch {
    // An unparsable row is already reported through its hash; there is nothing more to follow.
  }
  return hashes;
}

function blobProblem(store: Store, hash: string): string | undefined {
  if (!isSha256Hex(hash)) return `blob reference '${hash}' is not a sha256`;
  try {
    store.blobs.get(hash);
    return undefined;
  } catch (error) {
    if (error instanceof CorruptionError) return error.message;
    throw error;
  }
}

/**
 * One line describing a problem, for people.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeProblem } from "./verify.ts";
 * assert(describeProblem({ session: "s", seq: 3, what: "x" }) === "session s, event 3: x");
 * ```
 */
export function describeProblem(problem: VerifyProblem): string {
  const where = problem.seq === undefined
    ? `session ${problem.session}`
    : `session ${problem.session}, event ${problem.seq}`;
  return `${where}: ${problem.what}`;
}
