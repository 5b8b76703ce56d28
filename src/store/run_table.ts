/**
 * Runs and their sessions (one session per trial). The event logs hold what happened; these rows
 * hold what a query needs fast: a run's configuration and status, a session's head and result.
 *
 * @module
 */
import type { EVENT, EventPayload } from "./event_catalogue.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { canonicalJson } from "../core/canonical_json.ts";
import { damagedRecord, parseStoredJson } from "./_damaged_record.ts";
import { genesisHash } from "./event_log.ts";
import {
  type Bucket,
  type TrialRecord,
  trialRecordProblem,
  type TrialSummary,
  type Verdict,
} from "./trial_record.ts";

/**
 * The fields of a trial's summary that its `trial.verdict` event carries, so they are under the
 * hash chain: all but the wall time, which is not reproducible and so stays out of the chain.
 */
export const CHAINED_SUMMARY_FIELDS = [
  "verdict",
  "bucket",
  "reason",
  "steps",
  "tokens",
  "cost_usd",
  "reward",
] as const;

/**
 * The payload of a session's `trial.verdict` event: its summary's chained fields.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chainedSummary } from "./run_table.ts";
 * const payload = chainedSummary({
 *   verdict: "pass", bucket: "pass", reason: "tests passed", steps: 3,
 *   tokens: { input: 10, output: 2 }, cost_usd: null, duration_ms: 1234,
 * });
 * assert(!("duration_ms" in payload) && payload.steps === 3);
 * ```
 */
export function chainedSummary(
  result: Omit<TrialSummary, "task" | "repeat">,
): EventPayload<typeof EVENT.trialVerdict> {
  const { verdict, bucket, reason, steps, tokens, cost_usd, reward } = result;
  return {
    verdict,
    bucket,
    reason,
    steps,
    tokens,
    cost_usd,
    ...(reward === undefined ? {} : { reward }),
  };
}

/** A run's status. */
export type RunStatus = "running" | "finished" | "interrupted";

/** A session's status. */
export type SessionStatus = "pending" | "running" | "finished";

/** A run as stored. */
export interface RunRecord {
  /** The run id. */
  id: string;
  /** The run's configuration (model spec without secrets, agent, seed, tasks, ...). */
  config: Record<string, unknown>;
  /** When it was created, in ms since the epoch, from the injected clock. */
  createdAt: number;
  /** Its status. */
  status: RunStatus;
}

/** A session as stored. */
export interface SessionRecord {
  /** The session id. */
  id: string;
  /** The run it belongs to. */
  run: string;
  /** The task id. */
  task: string;
  /** The repeat index, from 0. */
  repeat: number;
  /**
   * Which attempt of its trial this is: 0 for the first, one more for each retry
   * (`resume --retry-errors`). Only a trial's last attempt counts.
   */
  retry: number;
  /** Sequence number of the last event when the session finished; -1 before. */
  headSeq: number;
  /** Hash of the last event when the session finished; the genesis hash before. */
  headHash: string;
  /** Its status. */
  status: SessionStatus;
  /** The trial's result, once finished. */
  result: TrialRecord | null;
}

/**
 * The `runs` and `sessions` tables.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { seed: 1 }, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * assert(store.runs.sessions("r1").length === 1);
 * store.close();
 * ```
 */
export class RunTable {
  readonly #insertRun: StatementSync;
  readonly #selectRun: StatementSync;
  readonly #selectRuns: StatementSync;
  readonly #setRunStatus: StatementSync;
  readonly #insertSession: StatementSync;
  readonly #selectSession: StatementSync;
  readonly #selectSessions: StatementSync;
  readonly #selectAttempts: StatementSync;
  readonly #selectSessionIds: StatementSync;
  readonly #setSessionStatus: StatementSync;
  readonly #setSessionResult: StatementSync;
  readonly #selectSummaries: StatementSync;
  readonly #selectVerdicts: StatementSync;
  readonly #countUnfinished: StatementSync;

  /** Wraps a migrated database. */
  constructor(db: DatabaseSync) {
    this.#insertRun = db.prepare(
      "INSERT INTO runs (id, config, created_at, status) VALUES (?, ?, ?, 'running')",
    );
    this.#selectRun = db.prepare("SELECT * FROM runs WHERE id = ?");
    this.#selectRuns = db.prepare("SELECT * FROM runs ORDER BY created_at, id");
    this.#setRunStatus = db.prepare("UPDATE runs SET status = ? WHERE id = ?");
    this.#insertSession = db.prepare(
      "INSERT INTO sessions (id, run_id, task, repeat, retry, head_seq, head_hash) VALUES (?, ?, ?, ?, ?, -1, ?)",
    );
    this.#selectSession = db.prepare("SELECT * FROM sessions WHERE id = ?");
    this.#selectSessions = db.prepare(
      `SELECT * FROM sessions WHERE run_id = ? AND ${LAST_ATTEMPT} ORDER BY task, repeat`,
    );
    this.#selectAttempts = db.prepare(
      "SELECT * FROM sessions WHERE run_id = ? ORDER BY task, repeat, retry",
    );
    this.#selectSessionIds = db.prepare(
      "SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id",
    );
    this.#setSessionStatus = db.prepare("UPDATE sessions SET status = ? WHERE id = ?");
    this.#selectSummaries = db.prepare(`
      SELECT task, repeat, verdict, bucket, reason, steps, tokens_input, tokens_output, cost_usd, duration_ms,
        reward
      FROM sessions WHERE run_id = ? AND status = 'finished' AND ${LAST_ATTEMPT}
      ORDER BY task, repeat`);
    // Rows as arrays: five times faster than objects for a run of 100,000 trials (measured).
    // (Deno's node:sqlite has it; its bundled Node types do not list it yet.)
    (this.#selectSummaries as StatementSync & { setReturnArrays(arrays: boolean): void })
      .setReturnArrays(true);
    this.#selectVerdicts = db.prepare(`
      SELECT task, repeat, id AS session, verdict
      FROM sessions WHERE run_id = ? AND status = 'finished' AND ${LAST_ATTEMPT}
      ORDER BY task, repeat`);
    this.#countUnfinished = db.prepare(
      `SELECT COUNT(*) AS n FROM sessions WHERE run_id = ? AND status != 'finished' AND ${LAST_ATTEMPT}`,
    );
    this.#setSessionResult = db.prepare(`
      UPDATE sessions SET status = 'finished', result = ?, verdict = ?, bucket = ?, reason = ?,
        steps = ?, tokens_input = ?, tokens_output = ?, cost_usd = ?, duration_ms = ?, reward = ?,
        head_seq = COALESCE((SELECT MAX(seq) FROM events WHERE session_id = sessions.id), -1),
        head_hash = COALESCE(
          (SELECT hash FROM events WHERE session_id = sessions.id ORDER BY seq DESC LIMIT 1),
          head_hash)
      WHERE id = ?`);
  }

  /**
   * Records a new run with status `running`; its configuration, a JSON object, is stored as
   * canonical JSON (its shape is the caller's: eval's `RunConfig`).
   */
  create(run: { id: string; config: object; createdAt: number }): void {
    this.#insertRun.run(run.id, canonicalJson(run.config), run.createdAt);
  }

  /** A run by id, or undefined. */
  get(id: string): RunRecord | undefined {
    const row = this.#selectRun.get(id) as Record<string, string & number> | undefined;
    return row === undefined ? undefined : toRun(row);
  }

  /** Every run, oldest first. */
  list(): RunRecord[] {
    return (this.#selectRuns.all() as Record<string, string & number>[]).map(toRun);
  }

  /** Sets a run's status. */
  setStatus(id: string, status: RunStatus): void {
    this.#setRunStatus.run(status, id);
  }

  /** Records a new session of a run, with an empty log: its trial's first attempt unless told. */
  createSession(
    session: { id: string; run: string; task: string; repeat: number; retry?: number },
  ): void {
    this.#insertSession.run(
      session.id,
      session.run,
      session.task,
      session.repeat,
      session.retry ?? 0,
      genesisHash(session.id),
    );
  }

  /** A session by id, or undefined. */
  session(id: string): SessionRecord | undefined {
    const row = this.#selectSession.get(id) as Record<string, string & number> | undefined;
    return row === undefined ? undefined : toSession(row);
  }

  /** The sessions of a run that count: each trial's last attempt, by task and repeat. */
  sessions(run: string): SessionRecord[] {
    return (this.#selectSessions.all(run) as Record<string, string & number>[]).map(toSession);
  }

  /** Every session of a run, retried attempts too: by task, repeat and attempt. */
  attempts(run: string): SessionRecord[] {
    return (this.#selectAttempts.all(run) as Record<string, string & number>[]).map(toSession);
  }

  /** The ids of every session, of every run, that start with `prefix` (all of them for `""`). */
  sessionIdsStartingWith(prefix: string): string[] {
    return (this.#selectSessionIds.all(prefix) as { id: string }[]).map((row) => row.id);
  }

  /** Sets a session's status. */
  setSessionStatus(id: string, status: SessionStatus): void {
    this.#setSessionStatus.run(status, id);
  }

  /**
   * Marks a session finished with its result, and pins its head (the last event's sequence number
   * and hash), so removing events from the end of a finished log is detectable.
   */
  finishSession(id: string, result: TrialRecord): void {
    this.#setSessionResult.run(
      canonicalJson(result),
      result.verdict,
      result.bucket,
      result.reason,
      result.steps,
      result.tokens.input,
      result.tokens.output,
      result.cost_usd,
      result.duration_ms,
      result.reward ?? null,
      id,
    );
  }

  /** The verdicts of a run's finished trials, by task and repeat, read from columns (fast). */
  trialVerdicts(run: string): TrialVerdict[] {
    return this.#selectVerdicts.all(run) as unknown as TrialVerdict[];
  }

  /** How many of a run's trials have no verdict yet (pending, or cut off by a crash). */
  unfinishedCount(run: string): number {
    return (this.#countUnfinished.get(run) as { n: number }).n;
  }

  /** The summaries of a run's finished trials, by task and repeat, read from columns (fast). */
  trialSummaries(run: string): TrialSummary[] {
    return (this.#selectSummaries.all(run) as unknown as SummaryRow[]).map((
      [task, repeat, verdict, bucket, reason, steps, input, output, cost, duration, reward],
    ) => ({
      task,
      repeat,
      verdict,
      bucket,
      reason,
      steps,
      tokens: { input, output },
      cost_usd: cost,
      duration_ms: duration,
      ...(reward === null ? {} : { reward }),
    }));
  }
}

// A session is its trial's last attempt when no later one of the same trial exists (the
// constraint's index answers it).
const LAST_ATTEMPT =
  `NOT EXISTS (SELECT 1 FROM sessions AS later WHERE later.run_id = sessions.run_id
  AND later.task = sessions.task AND later.repeat = sessions.repeat
  AND later.retry > sessions.retry)`;

/** A finished trial's verdict and session, as paired comparison needs it. */
export interface TrialVerdict {
  /** Task id. */
  task: string;
  /** Repeat. */
  repeat: number;
  /** The trial's session id. */
  session: string;
  /** Pass or fail. */
  verdict: Verdict;
}

type SummaryRow = [
  string,
  number,
  Verdict,
  Bucket,
  string,
  number,
  number,
  number,
  number | null,
  number,
  number | null,
];

function toRun(row: Record<string, string & number>): RunRecord {
  return {
    id: row.id,
    config: parseStoredJson(row.config, `run ${row.id} (config)`, row.id, "object") as Record<
      string,
      unknown
    >,
    createdAt: row.created_at,
    status: row.status as RunStatus,
  };
}

function toSession(row: Record<string, string & number>): SessionRecord {
  return {
    id: row.id,
    run: row.run_id,
    task: row.task,
    repeat: row.repeat,
    retry: row.retry,
    headSeq: row.head_seq,
    headHash: row.head_hash,
    status: row.status as SessionStatus,
    result: row.result === null ? null : storedResult(row),
  };
}

function storedResult(row: Record<string, string & number>): TrialRecord {
  const where = `session ${row.id} (result)`;
  const result = parseStoredJson(row.result, where, row.run_id, "object");
  const problem = trialRecordProblem(result);
  if (problem !== undefined) {
    throw damagedRecord(where, `it is not a trial result (${problem})`, row.run_id);
  }
  return result as TrialRecord;
}
