/**
 * The events of a trial's frame: it started or went on after an interruption, was graded, and
 * closed with its verdict. Each kind's payload schema is described with what the event means.
 *
 * @module
 */
import { z } from "zod";
import { BUCKETS, VERDICTS } from "../trial_record.ts";
import { COUNT, SNAPSHOT_ROOT, TOKENS } from "./_fields.ts";

const CHECK = z.object({
  /** The check's kind. */
  kind: z.string(),
  /** Whether it held. */
  passed: z.boolean(),
  /** What it found. */
  detail: z.string(),
});

const REQUIREMENT = z.object({
  /** The requirement's key. */
  key: z.string(),
  /** Whether it held. */
  passed: z.boolean(),
  /** Expected and actual. */
  detail: z.string(),
  /** Whether only a model-driven run can meet it. */
  modelOnly: z.boolean(),
});

/** A grading script's run, less its output (which may hold timings). */
const CHAINED_SCRIPT = z.object({
  /** The script. */
  script: z.string(),
  /** Its exit code. */
  exit_code: z.number().int(),
  /** Whether it was killed at its deadline. */
  timed_out: z.boolean(),
});

/** Where a trial went on when its engine was lost under it (a run's `--engine`s). */
const MOVED = {
  /** The engine it goes on on. */
  engine: z.string().optional(),
  /** The engine it was on, and why it stopped there. */
  moved_from: z.object({ engine: z.string(), reason: z.string() }).optional(),
};

/** The trial's events: kind → payload schema. */
export const TRIAL_EVENTS = {
  "trial.started": z.object({
    /** The task id. */
    task: z.string(),
    /** The repeat. */
    repeat: COUNT,
    /** The agent's name. */
    agent: z.string(),
    /** The task's image. */
    image: z.string(),
    /** The session of the attempt this one retries, ended by an infrastructure error. */
    retry_of: z.string().optional(),
    /** The Docker engine it runs on, when the run was given several (`--engine`). */
    engine: z.string().optional(),
  }).describe(
    "A trial began: which task, which repeat, which agent, on which image (and engine, when the " +
      "run has several); for a retry, which attempt it retries.",
  ),

  "trial.resumed": z.union([
    z.object({
      /** The end state was sealed: it is graded. */
      phase: z.literal("grade"),
      /** The sealed end state's snapshot root. */
      root: SNAPSHOT_ROOT,
      ...MOVED,
    }),
    z.object({
      /** The agent goes on, or its end state is sealed. */
      phase: z.enum(["agent", "seal"]),
      /** Whether its container survived or a new one was restored. */
      container: z.enum(["reused", "restored"]),
      /** The snapshot a restored container starts from. */
      root: SNAPSHOT_ROOT,
      ...MOVED,
    }),
  ]).describe(
    "An interrupted trial went on: from which phase, in which container, from which snapshot " +
      "(and on which engine, when its engine was lost under it: from which, and why).",
  ),

  "grading.finished": z.object({
    /** Pass or fail. */
    verdict: z.enum(VERDICTS),
    /** The bucket. */
    bucket: z.enum(BUCKETS),
    /** Why. */
    reason: z.string(),
    /** Every check. */
    checks: z.array(CHECK),
    /** Every requirement. */
    requirements: z.array(REQUIREMENT),
    /** The success script's run, when it ran. */
    success: CHAINED_SCRIPT.nullable(),
    /** The canary's, when it ran. */
    canary: CHAINED_SCRIPT.nullable(),
    /** A Harbor task's reward, when its verifier wrote one. */
    reward: z.number().optional(),
  }).describe(
    "Grading decided (the scripts' exit codes are chained; their output goes to the results only).",
  ),

  "trial.verdict": z.object({
    /** Pass or fail. */
    verdict: z.enum(VERDICTS),
    /** The bucket. */
    bucket: z.enum(BUCKETS),
    /** Why. */
    reason: z.string(),
    /** Model steps. */
    steps: COUNT,
    /** Tokens. */
    tokens: TOKENS,
    /** Dollars, or null when unpriced. */
    cost_usd: z.number().nullable(),
    /** A Harbor trial's reward. */
    reward: z.number().optional(),
  }).describe(
    "Closes a finished session's log, in the same transaction as the session's result, so " +
      "`verify` holds the result to the chain: the summary less its wall time.",
  ),
};
