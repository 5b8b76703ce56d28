/**
 * Paired comparison of two runs (SPEC section 8): trials are paired by (task, repeat); b counts
 * pass→fail, c fail→pass; the exact two-sided McNemar p-value says whether the flips could be
 * chance. Runs over different suites, task selections or repeat counts are incomparable: reported
 * with what differs, and no numbers.
 *
 * @module
 */
import type { TrialVerdict } from "../store/run_table.ts";
import { mcnemarExact } from "./estimators.ts";

/** What a comparison needs of a run. */
export interface ComparedRun {
  /** Its id. */
  id: string;
  /** The suite digest (covers every task file, checks included). */
  suite_digest: string;
  /** The selected tasks. */
  tasks: string[];
  /** Repeats per task. */
  repeat: number;
  /** Its finished trials. */
  trials: TrialVerdict[];
}

/** A trial whose verdict changed. */
export interface Flip {
  /** Task. */
  task: string;
  /** Repeat. */
  repeat: number;
  /** `pass→fail` (a regression) or `fail→pass`. */
  direction: "pass→fail" | "fail→pass";
  /** The base run's session. */
  base_session: string;
  /** The candidate's session. */
  candidate_session: string;
}

/**
 * The outcome of a comparison.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareRuns, type Comparison } from "./compare.ts";
 * const run = (id: string, repeat: number) => ({
 *   id, suite_digest: "d", tasks: ["t"], repeat, trials: [],
 * });
 * const comparison: Comparison = compareRuns(run("base", 1), run("cand", 3));
 * assert(!comparison.comparable && comparison.differences[0] === "repeat count 1 vs 3");
 * ```
 */
export type Comparison =
  | { comparable: false; base: string; candidate: string; differences: string[] }
  | {
    comparable: true;
    base: string;
    candidate: string;
    /** Pairs with a verdict on both sides. */
    pairs: number;
    /** Pass→fail flips. */
    b: number;
    /** Fail→pass flips. */
    c: number;
    /** Exact two-sided McNemar p-value. */
    p_value: number;
    /** Pass rates over the paired trials (fractions). */
    base_pass_rate: number | null;
    /** The candidate's. */
    candidate_pass_rate: number | null;
    /** Candidate minus base, in percentage points. */
    delta_pp: number | null;
    /** Every flip. */
    flips: Flip[];
  };

/**
 * Compares a candidate run with a base run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareRuns } from "./compare.ts";
 * const run = (id: string, verdict: "pass" | "fail") => ({
 *   id, suite_digest: "d", tasks: ["t"], repeat: 1,
 *   trials: [{ task: "t", repeat: 0, session: `${id}-s`, verdict }],
 * });
 * const comparison = compareRuns(run("base", "pass"), run("cand", "fail"));
 * assert(comparison.comparable && comparison.b === 1);
 * ```
 */
export function compareRuns(base: ComparedRun, candidate: ComparedRun): Comparison {
  const differences: string[] = [];
  if (base.suite_digest !== candidate.suite_digest) {
    differences.push(
      `suite digest ${base.suite_digest.slice(0, 12)} vs ${
        candidate.suite_digest.slice(0, 12)
      } (the tasks, tests or checks differ)`,
    );
  }
  const baseTasks = [...base.tasks].sort().join(",");
  const candidateTasks = [...candidate.tasks].sort().join(",");
  if (baseTasks !== candidateTasks) {
    const only = (a: string[], b: string[]) => a.filter((task) => !b.includes(task));
    differences.push(
      `task selection: only in base ${only(base.tasks, candidate.tasks).join(", ") || "-"}; ` +
        `only in candidate ${only(candidate.tasks, base.tasks).join(", ") || "-"}`,
    );
  }
  if (base.repeat !== candidate.repeat) {
    differences.push(`repeat count ${base.repeat} vs ${candidate.repeat}`);
  }
  if (differences.length > 0) {
    return { comparable: false, base: base.id, candidate: candidate.id, differences };
  }

  const key = (trial: { task: string; repeat: number }) => `${trial.task}\u0000${trial.repeat}`;
  const candidates = new Map(candidate.trials.map((trial) => [key(trial), trial]));
  let pairs = 0;
  let basePasses = 0;
  let candidatePasses = 0;
  const flips: Flip[] = [];
  type Trial = ComparedRun["trials"][number];
  const byTaskThenRepeat = (a: Trial, b: Trial) =>
    a.task < b.task ? -1 : a.task > b.task ? 1 : a.repeat - b.repeat;
  for (const before of [...base.trials].sort(byTaskThenRepeat)) {
    const after = candidates.get(key(before));
    if (after === undefined) continue;
    pairs++;
    if (before.verdict === "pass") basePasses++;
    if (after.verdict === "pass") candidatePasses++;
    if (before.verdict !== after.verdict) {
      flips.push({
        task: before.task,
        repeat: before.repeat,
        direction: before.verdict === "pass" ? "pass→fail" : "fail→pass",
        base_session: before.session,
        candidate_session: after.session,
      });
    }
  }
  const b = flips.filter((flip) => flip.direction === "pass→fail").length;
  const c = flips.length - b;
  const baseRate = pairs === 0 ? null : basePasses / pairs;
  const candidateRate = pairs === 0 ? null : candidatePasses / pairs;
  return {
    comparable: true,
    base: base.id,
    candidate: candidate.id,
    pairs,
    b,
    c,
    p_value: mcnemarExact(b, c),
    base_pass_rate: baseRate,
    candidate_pass_rate: candidateRate,
    delta_pp: baseRate === null || candidateRate === null
      ? null
      : Math.round((candidateRate - baseRate) * 1e8) / 1e6,
    flips,
  };
}
