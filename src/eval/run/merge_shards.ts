/**
 * `verdict merge`: the shard runs of one experiment (`eval --shard K/N`, each made in its own state
 * folder, perhaps on another machine) joined into the run an unsharded eval makes, in a state
 * folder that does not hold that run yet. Every shard has the unsharded run's id, and a session's
 * id derives from the run id, task and repeat, so each session is copied as it is: its hash chain,
 * blobs and result unchanged. Only the run's creation time (the earliest shard's) and the trials'
 * wall times differ from an unsharded run's.
 *
 * Refused (exit 2, naming the argument): a run that is not a shard, shards of different
 * experiments or of different run ids, shards split into different counts, the same shard twice,
 * an unfinished shard, a merge that leaves out a shard, and a target that already holds another
 * run of that id. Refused with exit 1: a shard changed after it was signed, and with `--trust`, a
 * shard not signed by a trusted key. The merged run keeps each shard's signed statement and is
 * signed by the merge's key, so `verify --key` can demand trusted signers for every part.
 *
 * @module
 */
import { join } from "node:path";
import { canonicalJson } from "../../core/canonical_json.ts";
import type { SigningKey } from "../../core/ed25519.ts";
import { CorruptionError, UsageError } from "../../core/errors.ts";
import type { Results } from "../../report/results.ts";
import { writeRunReports } from "../../report/run_reports.ts";
import { copySession } from "../../store/copy_session.ts";
import type { RunRecord, SessionRecord } from "../../store/run_table.ts";
import type { ShardSignature } from "../../store/shard_signatures.ts";
import type { Store } from "../../store/store.ts";
import { describeProblem, verifyRun } from "../../store/verify.ts";
import { eventBlobReferences } from "./event_references.ts";
import { EXPERIMENT_FIELDS, type RunConfig, runConfig } from "../setup/run_identity.ts";
import { tryLockRun } from "./run_lock.ts";
import { signRun } from "./run_signature.ts";
import { requireTrusted } from "./_shard_trust.ts";
import { shardRow } from "./shard_signatures.ts";
import { type Shard, shardLabel, shardTaskIds } from "../setup/shard.ts";

/** How a merge is signed and which shards it takes. */
export interface MergeOptions {
  /** Take only shards signed by one of these public keys (`--trust`); any shard when absent. */
  trust?: readonly string[];
  /** Signs the merged run (`VERDICT_SIGNING_KEY` or the per-user key); unsigned without. */
  signingKey?: SigningKey;
  /** Called as the merge passes each of its steps, so a test can kill it there. */
  at?: (point: MergePoint) => void;
}

/**
 * The steps of a merge, in order; a merge killed after any of them and run again gives the same
 * run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MERGE_POINTS } from "./merge_shards.ts";
 * assert.equal(MERGE_POINTS.length, 10);
 * ```
 */
export const MERGE_POINTS = [
  "checked",
  "opened",
  "locked",
  "created",
  "session-copied",
  "shards-recorded",
  "committed",
  "logs-copied",
  "signed",
  "reported",
] as const;

/** One of {@linkcode MERGE_POINTS}. */
export type MergePoint = typeof MERGE_POINTS[number];

/** One shard run to merge, as the user named it. */
export interface ShardSource {
  /** The argument that named it (for messages). */
  argument: string;
  /** Its state database, open. */
  store: Store;
  /** The run. */
  run: RunRecord;
  /** Its run folder (build logs are copied from it when present). */
  runDir: string;
  /** The state folder it lives in (for the `resume` hint). */
  home: string;
}

/** A finished merge. */
export interface MergedRun {
  /** The merged run, as recorded in the target. */
  run: RunRecord;
  /** Its results (also in `runs/<id>/results.json`). */
  results: Results;
  /** Its run folder in the target state folder. */
  runDir: string;
  /** How many shards were joined. */
  shards: number;
  /** Events and new blobs copied. */
  copied: { events: number; blobs: number };
}

/**
 * Merges shard runs into the state folder `home`, whose database `openTarget` opens once the shards
 * are found to make one whole experiment (a refused merge writes nothing): copies every
 * session of every shard and the run record in one transaction, verifies the result as
 * `verdict verify` would, and writes `results.json`, `report.md` and `report.html` as `eval` does.
 *
 * @example
 * ```ts ignore
 * import { mergeShards } from "./merge_shards.ts";
 * const merged = await mergeShards(sources, home, target);
 * console.log(merged.run.id, merged.results.summary.pass_rate);
 * ```
 * @throws {UsageError} when the shards do not make one complete experiment, or the target already
 * holds the run or another process is writing it (exit 2), naming the argument and the fix.
 * @throws {CorruptionError} when a shard's record is damaged, or does not hold its slice (exit 1).
 */
export async function mergeShards(
  sources: readonly ShardSource[],
  home: string,
  openTarget: () => Store,
  options: MergeOptions = {},
): Promise<MergedRun> {
  // Each shard read as of one moment: what is checked (its signature) is what is copied.
  for (const { store } of sources) store.db.exec("BEGIN");
  try {
    for (const { store } of sources) store.runs.list();
    return await merge(sources, home, openTarget, options);
  } finally {
    for (const { store } of sources) store.db.exec("ROLLBACK");
  }
}

async function merge(
  sources: readonly ShardSource[],
  home: string,
  openTarget: () => Store,
  options: MergeOptions,
): Promise<MergedRun> {
  const shards = checkShards(sources);
  for (const { source } of shards) await requireTrusted(source, options.trust);
  const at = options.at ?? (() => {});
  at("checked");
  const { id } = shards[0].source.run;
  const target = openTarget();
  at("opened");
  const runDir = join(home, "runs", id);
  if (target.runs.get(id) !== undefined && !mergedBefore(target, id, shards)) {
    throw alreadyHeld(home, id);
  }
  await Deno.mkdir(runDir, { recursive: true });
  const lock = tryLockRun(runDir);
  if (lock === undefined) {
    throw new UsageError(
      `run ${id} in ${home} is being worked on by another process; wait for it, or merge into ` +
        `another state folder (--home DIR)`,
    );
  }
  try {
    at("locked");
    const copied = { events: 0, blobs: 0 };
    // A merge that stopped after its commit is finished by merging the same shards again: its
    // files are written; anything else already holding the run is refused.
    if (!mergedBefore(target, id, shards)) {
      // Made by another process between the look and the lock.
      if (target.runs.get(id) !== undefined) throw alreadyHeld(home, id);
      Object.assign(copied, copyShards(target, id, shards, at));
    } else requireVerifies(target, id);
    at("committed");
    for (const { source } of shards) await copyBuildLogs(source.runDir, runDir);
    at("logs-copied");
    const run = target.runs.get(id)!;
    if (options.signingKey) await signRun(target, run, options.signingKey);
    at("signed");
    const results = await writeRunReports(target, run, runDir);
    at("reported");
    return { run, results, runDir, shards: shards.length, copied };
  } finally {
    lock.release();
  }
}

/** The shards' runs copied into `target` as one run, verified, in one transaction. */
function copyShards(
  target: Store,
  id: string,
  shards: readonly CheckedShard[],
  at: (point: MergePoint) => void,
): { events: number; blobs: number } {
  const copied = { events: 0, blobs: 0 };
  target.transaction(() => {
    target.runs.create({
      id,
      config: mergedConfig(shards[0].source.run),
      createdAt: mergedCreatedAt(shards),
    });
    at("created");
    for (const { source } of shards) {
      const references = eventBlobReferences(source.store.blobs);
      for (const session of source.store.runs.attempts(id)) {
        const one = copySession(source.store, target, session, references);
        copied.events += one.events;
        copied.blobs += one.blobs;
        at("session-copied");
      }
    }
    for (const row of shardRows(id, shards)) target.shardSignatures.add(row);
    at("shards-recorded");
    target.runs.setStatus(id, "finished");
    requireVerifies(target, id);
  });
  return copied;
}

// The merged run verifies as `verdict verify` would (before it is committed, or signed again).
function requireVerifies(target: Store, id: string): void {
  const { problems } = verifyRun(target, id, eventBlobReferences(target.blobs));
  if (problems.length === 0) return;
  throw new CorruptionError(
    `the merged run ${id} does not verify: ${describeProblem(problems[0])}; nothing was ` +
      `merged. Run 'verdict verify' on each shard, and on ${target.path}`,
  );
}

/**
 * Whether `target` holds exactly the run merging these shards makes: its configuration, start and
 * status, every attempt as the shards hold it (head, status, result), and every shard's row.
 */
function mergedBefore(target: Store, id: string, shards: readonly CheckedShard[]): boolean {
  const run = target.runs.get(id);
  if (
    run === undefined || run.status !== "finished" || run.createdAt !== mergedCreatedAt(shards) ||
    canonicalJson(run.config) !== canonicalJson(mergedConfig(shards[0].source.run))
  ) {
    return false;
  }
  const byId = (sessions: readonly SessionRecord[]) =>
    canonicalJson([...sessions].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const expected = shards.flatMap(({ source }) => source.store.runs.attempts(id));
  return byId(target.runs.attempts(id)) === byId(expected) &&
    canonicalJson(target.shardSignatures.list(id)) === canonicalJson(shardRows(id, shards));
}

function shardRows(id: string, shards: readonly CheckedShard[]): ShardSignature[] {
  return shards.map(({ source, shard }) => shardRow(id, source.store, source.run, shard));
}

function mergedCreatedAt(shards: readonly CheckedShard[]): number {
  return Math.min(...shards.map(({ source }) => source.run.createdAt));
}

interface CheckedShard {
  source: ShardSource;
  shard: Shard;
}

// Every source a finished shard of one experiment and one run id, each shard once, none missing;
// sorted by shard.
function checkShards(sources: readonly ShardSource[]): CheckedShard[] {
  const checked = sources.map((source) => ({ source, config: runConfig(source.run) }));
  const first = checked[0];
  const byIndex = new Map<number, ShardSource>();
  const shards: CheckedShard[] = [];
  for (const { source, config } of checked) {
    const shard = requireShard(source, config);
    const difference = experimentDifference(source.run.config, first.source.run.config);
    if (difference !== undefined) {
      throw new UsageError(
        `${source.argument} is a shard of another experiment than ${first.source.argument}: ` +
          `its ${difference.field} is ${difference.this}, that one's is ${difference.that}. ` +
          `Merge only the shards of one experiment (the same tasks, repeat, agent, model, ` +
          `settings, seed and verdict version)`,
      );
    }
    if (source.run.id !== first.source.run.id) {
      throw new UsageError(
        `${source.argument} is run ${source.run.id}, ${first.source.argument} is run ` +
          `${first.source.run.id}: the shards of one experiment share one run id; run each ` +
          `shard in a state folder of its own that has not run this experiment before`,
      );
    }
    const firstCount = first.config.shard?.count;
    if (shard.count !== firstCount) {
      throw new UsageError(
        `${source.argument} is shard ${shardLabel(shard)}, ${first.source.argument} is a shard ` +
          `of ${firstCount}: merge the shards of one split (the same N in --shard K/N)`,
      );
    }
    const twin = byIndex.get(shard.index);
    if (twin !== undefined) {
      throw new UsageError(
        `${twin.argument} and ${source.argument} are both shard ${shardLabel(shard)} of run ` +
          `${source.run.id}: give each shard once`,
      );
    }
    byIndex.set(shard.index, source);
    requireFinished(source, shard);
    requireSlice(source, config, shard);
    shards.push({ source, shard });
  }
  const count = shards[0].shard.count;
  const missing = Array.from({ length: count }, (_, index) => index + 1)
    .filter((index) => !byIndex.has(index))
    .map((index) => shardLabel({ index, count }));
  if (missing.length > 0) {
    throw new UsageError(
      `the merge of run ${first.source.run.id} lacks shard ${missing.join(", ")}: give every ` +
        `shard from 1/${count} to ${count}/${count} (a partial merge is not the experiment's run)`,
    );
  }
  return shards.sort((a, b) => a.shard.index - b.shard.index);
}

function requireShard(source: ShardSource, config: RunConfig): Shard {
  if (config.shard !== undefined) return config.shard;
  throw new UsageError(
    `${source.argument} is run ${source.run.id}, made without --shard: merge joins the runs ` +
      `of 'verdict eval --shard K/N'; an unsharded run is already whole`,
  );
}

function requireFinished(source: ShardSource, shard: Shard): void {
  const unfinished = source.store.runs.unfinishedCount(source.run.id);
  if (source.run.status === "finished" && unfinished === 0) return;
  throw new UsageError(
    `${source.argument} is shard ${shardLabel(shard)} of run ${source.run.id}, and it is ` +
      `unfinished (${unfinished} trial${unfinished === 1 ? "" : "s"} without a verdict, status ` +
      `${source.run.status}): finish it first with 'verdict resume ${source.run.id} --home ` +
      `${source.home}'`,
  );
}

// A shard's sessions must be its slice, every repeat of each of its tasks.
function requireSlice(source: ShardSource, config: RunConfig, shard: Shard): void {
  const expected = shardTaskIds(config.tasks, shard).flatMap((task) =>
    Array.from({ length: config.repeat }, (_, repeat) => `${task}#${repeat}`)
  ).sort();
  const held = source.store.runs.sessions(source.run.id)
    .map((session) => `${session.task}#${session.repeat}`).sort();
  if (canonicalJson(expected) === canonicalJson(held)) return;
  throw new CorruptionError(
    `the record is damaged or not verdict's: ${source.argument} (run ${source.run.id}) is shard ` +
      `${shardLabel(shard)}, whose trials are ${expected.join(", ") || "none"}, but it holds ` +
      `${held.join(", ") || "none"}. Run 'verdict verify ${source.run.id}' on it`,
  );
}

function experimentDifference(
  config: Record<string, unknown>,
  reference: Record<string, unknown>,
): { field: string; this: string; that: string } | undefined {
  for (const field of EXPERIMENT_FIELDS) {
    const [mine, theirs] = [
      canonicalJson(config[field] ?? null),
      canonicalJson(reference[field] ?? null),
    ];
    if (mine !== theirs) return { field, this: mine, that: theirs };
  }
  return undefined;
}

// The unsharded run's configuration: the first shard's, without the shard.
function mergedConfig(run: RunRecord): Record<string, unknown> {
  const { shard: _shard, ...config } = run.config;
  return config;
}

function alreadyHeld(home: string, id: string): UsageError {
  return new UsageError(
    `${home} already holds run ${id}: a merged run keeps the experiment's id (its sessions' ids ` +
      `and hash chains derive from it), so merge into a state folder that does not hold it ` +
      `(--home DIR)`,
  );
}

async function copyBuildLogs(shardRunDir: string, runDir: string): Promise<void> {
  const builds = join(shardRunDir, "builds");
  let names: string[];
  try {
    names = [...Deno.readDirSync(builds)].filter((entry) => entry.isFile).map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  await Deno.mkdir(join(runDir, "builds"), { recursive: true });
  for (const name of names) await Deno.copyFile(join(builds, name), join(runDir, "builds", name));
}
