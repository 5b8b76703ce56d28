/**
 * Replay of an installed agent's session (`--agent cmd:COMMAND`): the agent is a program of its
 * own, so it runs again, for real, in a fresh container, and its gateway answers each model call
 * from the record after checking the call's normalized request against the recorded one. The end
 * state is sealed and graded as in the run; the replay is identical when every call matched, every
 * recorded call was made, and the verdict and bucket are the recorded ones. Nothing is written to
 * the state folder: the replayed trial is recorded in a scratch store in memory.
 *
 * @module
 */
import { SplitMix64 } from "../../core/rng.ts";
import { BUDGET_REFUSAL_STATUS, recordedBudgetBackend } from "../../gateway/budget.ts";
import type { GatewayAnswer, GatewayBackend } from "../../gateway/gateway.ts";
import {
  chargeRecorded,
  type RecordedExchange,
  recordedExchanges,
} from "../../gateway/recording.ts";
import { GatewayDivergence, replayBackend } from "../../gateway/replay_backend.ts";
import {
  ALL_REPLAY_MASKS,
  REPLAY_MASKS,
  type ReplayMaskName,
} from "../../gateway/request_fingerprint.ts";
import type { Sandbox } from "../../engine/sandbox.ts";
import { storeSnapshot } from "../../workspace/snapshot.ts";
import { EVENT, last } from "../../store/event_catalogue.ts";
import type { StoredEvent } from "../../store/event_log.ts";
import type { RunRecord, SessionRecord } from "../../store/run_table.ts";
import { openStore } from "../../store/store.ts";
import type { Agent } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import type { Price } from "../../model/prices.ts";
import type { StagedTask } from "../trial/trial_plan.ts";
import { trialGatewaysFrom } from "../setup/gateway_setup.ts";
import { runTrial } from "../trial/trial.ts";

/** What an installed agent's replay needs. */
export interface InstalledReplay {
  /** The run. */
  run: RunRecord;
  /** Its seed (the trial's stream is the one the run drew from). */
  seed: number;
  /** The session, finished. */
  session: SessionRecord;
  /** Its events. */
  events: readonly StoredEvent[];
  /** The task, staged. */
  staged: StagedTask;
  /** The agent, as the run recorded it. */
  agent: Agent;
  /** What a call costs, as the run priced it (requirements on cost are graded again). */
  price: Price | null;
  /** The container engine. */
  sandbox: Sandbox;
  /** The clock. */
  clock: Clock;
}

/** How the replay went: the calls made, and the first divergence, if any. */
export interface InstalledReplayOutcome {
  /** Model calls answered from the record. */
  calls: number;
  /** Model calls the record holds. */
  recordedCalls: number;
  /** Why it is not identical; undefined when it is. */
  divergence?: { call: number; reason: string };
}

/**
 * Replays one session of an installed agent.
 *
 * @example
 * ```ts ignore
 * const outcome = await replayInstalled({ run, seed, session, events, staged, agent, sandbox, clock });
 * console.log(outcome.divergence ?? "identical");
 * ```
 */
export async function replayInstalled(replay: InstalledReplay): Promise<InstalledReplayOutcome> {
  const { session, staged } = replay;
  // A trial resumed after an interruption started over: its last attempt is the one graded.
  const resumedAt = replay.events.findLastIndex((event) => event.kind === EVENT.trialResumed);
  const attempt = replay.events.slice(resumedAt + 1);
  const exchanges = recordedExchanges(attempt);
  const ran = last(attempt, EVENT.agentCmd)?.payload;
  let divergence: InstalledReplayOutcome["divergence"];
  let calls = 0;
  const checked = noticingDivergence(
    replayBackend(exchanges, "replay", recordedMasks(ran?.replay_masks)),
    (error) => divergence ??= { call: error.number, reason: error.message },
  );
  // Charged and recorded as the run was (into the scratch store), so the agent's outcome and the
  // requirements on it are graded again; the calls the run's budget refused are refused again, by
  // the record's decisions (the run's admissions depended on timing a replay does not keep).
  const refusals = recordedRefusals(exchanges);
  const gateway = trialGatewaysFrom(
    replay.price,
    () => Promise.resolve(checked),
    (_call, _answer, failure) => {
      if (failure === undefined) calls++;
    },
    (backend, ledger) => {
      // As in the run, the calls of the goes before the last count against its budget.
      chargeRecorded(ledger, replay.events.slice(0, resumedAt + 1));
      return recordedBudgetBackend(backend, ledger, refusals);
    },
  );
  const store = openStore(":memory:");
  try {
    const run = `${replay.run.id}.replay`;
    // The agent's clock reads what it read in the run (a trial's clock starts at its run's start).
    const clockStart = ran?.clock_start ? Date.parse(ran.clock_start) : replay.run.createdAt;
    store.runs.create({ id: run, config: {}, createdAt: clockStart });
    store.runs.createSession({ id: session.id, run, task: session.task, repeat: session.repeat });
    storeSnapshot(store.blobs, staged.initial);
    const { record, cleanup } = await runTrial({
      run,
      session: session.id,
      staged,
      repeat: session.repeat,
    }, {
      store,
      sandbox: replay.sandbox,
      images: replay.sandbox.derivedImages({ "verdict.run": run, "verdict.role": "derived-image" }),
      clock: replay.clock,
      rng: new SplitMix64(replay.seed).stream(`trial/${session.task}/${session.repeat}`),
      agent: replay.agent,
      signal: new AbortController().signal,
      owner: "replay",
      gateway,
    });
    await cleanup;
    const recorded = session.result;
    if (divergence === undefined && calls < exchanges.length) {
      divergence = {
        call: calls + 1,
        reason: `the agent made ${calls} model calls; the record holds ${exchanges.length}`,
      };
    }
    if (
      divergence === undefined && recorded !== null &&
      (record.verdict !== recorded.verdict || record.bucket !== recorded.bucket)
    ) {
      divergence = {
        call: calls,
        reason:
          `the replayed trial ended ${record.verdict} (${record.bucket}: ${record.reason}); ` +
          `the record says ${recorded.verdict} (${recorded.bucket})`,
      };
    }
    return { calls, recordedCalls: exchanges.length, divergence };
  } finally {
    store.close();
  }
}

/** The text every budget refusal of the gateway's ends its message with, old records' included. */
const REFUSAL_MARK = "Verdict answers no more model calls";

/** The calls the record's budget refused, by number: their answers, and which budget, in words. */
function recordedRefusals(
  exchanges: readonly RecordedExchange[],
): Map<number, { answer: GatewayAnswer; detail: string }> {
  const refusals = new Map<number, { answer: GatewayAnswer; detail: string }>();
  for (const { call, answer } of exchanges) {
    if (answer.status !== BUDGET_REFUSAL_STATUS || !answer.body.includes(REFUSAL_MARK)) continue;
    const detail = /budget (?:refuses the call|is spent): (.*); Verdict answers/.exec(answer.body);
    refusals.set(call.number, {
      answer: {
        status: answer.status,
        contentType: answer.content_type,
        body: answer.body,
        usage: null,
      },
      detail: detail?.[1] ?? "the recorded budget",
    });
  }
  return refusals;
}

/**
 * The masks a session was recorded with: every mask for one recorded before they were named, or
 * when it names one this Verdict does not know (it would otherwise compare more strictly than the
 * run meant).
 */
function recordedMasks(names: readonly string[] | undefined): readonly ReplayMaskName[] {
  if (names === undefined || !names.every((name) => Object.hasOwn(REPLAY_MASKS, name))) {
    return ALL_REPLAY_MASKS;
  }
  return names as ReplayMaskName[];
}

// `backend`, telling `notice` of each divergence it throws.
function noticingDivergence(
  backend: GatewayBackend,
  notice: (error: GatewayDivergence) => void,
): GatewayBackend {
  return {
    spec: backend.spec,
    async answer(call, signal) {
      try {
        return await backend.answer(call, signal);
      } catch (error) {
        if (error instanceof GatewayDivergence) notice(error);
        throw error;
      }
    },
  };
}
