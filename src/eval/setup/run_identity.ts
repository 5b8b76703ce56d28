/**
 * Run ids: a short hash of the experiment's canonical preimage, so the same experiment always maps
 * to the same id. Running it again never overwrites the earlier record: the new record takes the
 * next free attempt suffix (`<id>-2`, `<id>-3`, ...).
 *
 * @module
 */
import { z } from "zod";
import { CorruptionError } from "../../core/errors.ts";
import { deriveId } from "../../core/ids.ts";
import type { Expect, Same } from "../../core/same_type.ts";
import type { RunRecord } from "../../store/run_table.ts";
import { AGENT_NEEDS_SCHEMA, type AgentNeeds, recordedAgentKind } from "./agent_registry.ts";
import { LOOP_SETTINGS_SCHEMA, type LoopSettings } from "./loop_settings.ts";
import type { Shard } from "./shard.ts";

/** What defines an experiment: the preimage of its run id. */
export interface Experiment {
  /** The suite's digest. */
  suite_digest: string;
  /** The selected task ids, sorted. */
  tasks: string[];
  /** Repeats per task. */
  repeat: number;
  /** The agent's name in the registry (`loop`, `oracle`, `nop`). */
  agent: string;
  /** The model spec without secrets; null for agents that use none. */
  model: string | null;
  /** The loop agent's settings (base URL, policy, prices), without secrets; null for others. */
  settings: LoopSettings | null;
  /** The seed. */
  seed: number;
  /** The harness version. */
  harness_version: string;
  /**
   * Grading waives the requirements only a model can meet (`tasks check`'s oracle run); recorded
   * only when true, so the ids of other runs keep their preimage.
   */
  waive_model_only?: true;
  /** `--pass-reward`, recorded only when given (it decides Harbor tasks' verdicts). */
  pass_reward?: number;
  /**
   * The sha256 of an installed agent's own files (`--agent-files`) or kit, recorded only for one
   * that has them: the same command over other files is another experiment. Runs recorded before
   * it keep their ids.
   */
  agent_digest?: string;
}

/**
 * The fields of a run's configuration that make its experiment: two runs (or shards) agree on
 * these exactly when they run the same experiment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EXPERIMENT_FIELDS } from "./run_identity.ts";
 * assert.ok(EXPERIMENT_FIELDS.includes("seed"));
 * ```
 */
export const EXPERIMENT_FIELDS = [
  "suite_digest",
  "tasks",
  "repeat",
  "agent",
  "model",
  "settings",
  "seed",
  "harness_version",
  "waive_model_only",
  "pass_reward",
  "agent_digest",
] as const;
type _EveryExperimentField = Expect<Same<typeof EXPERIMENT_FIELDS[number], keyof Experiment>>;

/**
 * A run's configuration as `eval` records it: its experiment, and how it was run. Fields a 0.1.0
 * record lacks are optional.
 */
export interface RecordedRunConfig extends Experiment {
  /** 1 for the base id, n for `<id>-n`. */
  attempt: number;
  /** Trials at once. */
  concurrency: number;
  /** The paths the suite was loaded from. */
  paths: string[];
  /** Each task's folder. */
  task_dirs: Record<string, string>;
  /** Each task's category. */
  categories: Record<string, string>;
  /** What the agent needs (absent in 0.1.0 records: the registry's entry for `agent` says). */
  agent_needs?: AgentNeeds;
  /** An installed agent's own files (`--agent-files DIR`), mounted again on resume. */
  agent_files?: string;
  /**
   * `--shard K/N`: this run holds only that slice of the experiment's trials (`shard.ts`). Not part
   * of the experiment: every shard has the unsharded run's id; `verdict merge` joins them.
   */
  shard?: Shard;
}

/**
 * A run's configuration as read back by `resume`, `replay` and `compare` through
 * {@linkcode runConfig}: the agent by its registry name, the fields a 0.1.0 record lacks filled in
 * with the value that record implies.
 */
export interface RunConfig extends Omit<RecordedRunConfig, "agent_needs" | "waive_model_only"> {
  /** What the agent needs. */
  agent_needs: AgentNeeds;
  /** Whether grading waives the requirements only a model can meet. */
  waive_model_only: boolean;
}

const RUN_CONFIG_SCHEMA = z.object({
  suite_digest: z.string(),
  tasks: z.array(z.string()),
  repeat: z.number().int().min(1),
  agent: z.string(),
  model: z.string().nullable(),
  settings: LOOP_SETTINGS_SCHEMA.nullable(),
  seed: z.number().int().min(0),
  harness_version: z.string(),
  waive_model_only: z.literal(true).optional(),
  pass_reward: z.number().optional(),
  agent_digest: z.string().optional(),
  attempt: z.number().int().min(1),
  concurrency: z.number().int().min(1),
  paths: z.array(z.string()),
  task_dirs: z.record(z.string(), z.string()),
  categories: z.record(z.string(), z.string()),
  agent_needs: AGENT_NEEDS_SCHEMA.optional(),
  agent_files: z.string().optional(),
  shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) })
    .refine((shard) => shard.index <= shard.count, "the shard's index is above its count")
    .optional(),
});
type _SchemaMatchesRunConfig = Expect<
  Same<z.output<typeof RUN_CONFIG_SCHEMA>, RecordedRunConfig>
>;

/**
 * A run's configuration, parsed. A configuration that does not parse is a damaged or foreign
 * record: a {@linkcode CorruptionError} (exit 1) naming the run and the field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runConfig } from "./run_identity.ts";
 * assert.throws(
 *   () => runConfig({ id: "r1", config: { agent: "nop" } }),
 *   /run r1 .*suite_digest/,
 * );
 * ```
 * @throws {CorruptionError} when a field is missing or of the wrong kind, or the agent is unknown
 * and the record does not say what it needs.
 */
export function runConfig(run: Pick<RunRecord, "id" | "config">): RunConfig {
  const parsed = RUN_CONFIG_SCHEMA.safeParse(run.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw damagedConfig(run.id, issue.path.join(".") || "(the whole)", issue.message);
  }
  const { agent_needs, waive_model_only, ...config } = parsed.data;
  const kind = recordedAgentKind(config.agent);
  // An agent of a library user's own is no registry's: its record says what it needs.
  const needs = agent_needs ?? kind?.needs;
  if (needs === undefined) {
    throw damagedConfig(run.id, "agent", `no agent is named ${JSON.stringify(config.agent)}`);
  }
  // `tasks check` of 0.1.0 recorded `oracle (tasks check)`: the oracle, waiving model-only
  // requirements as its record says.
  return {
    ...config,
    agent: kind?.name ?? config.agent,
    agent_needs: needs,
    waive_model_only: waive_model_only === true,
  };
}

function damagedConfig(run: string, field: string, what: string): CorruptionError {
  return new CorruptionError(
    `the record is damaged or not verdict's: run ${run} (config), field ${field}: ${what}. ` +
      `Check that the state directory holds runs made by verdict`,
  );
}

/**
 * The experiment's base id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { experimentId } from "./run_identity.ts";
 * const experiment = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0",
 * };
 * assert(experimentId(experiment) === experimentId({ ...experiment }));
 * ```
 */
export function experimentId(experiment: Experiment): string {
  return deriveId("verdict.run/1", experiment);
}

/**
 * A session's id: derived from its run, task and repeat, and for a retried trial's later attempt,
 * its number (a first attempt's id is the one it always had).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionId } from "./run_identity.ts";
 * assert(sessionId("r1", "t", 0) !== sessionId("r1", "t", 1));
 * assert(sessionId("r1", "t", 0) === sessionId("r1", "t", 0, 0));
 * assert(sessionId("r1", "t", 0, 1) !== sessionId("r1", "t", 0));
 * ```
 */
export function sessionId(run: string, task: string, repeat: number, retry = 0): string {
  return deriveId(
    "verdict.session/1",
    retry === 0 ? { run, task, repeat } : {
      run,
      task,
      repeat,
      retry,
    },
  );
}
