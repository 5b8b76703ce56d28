/**
 * The loop agent's settings as a run records them (`settings` in its configuration): what shapes
 * its trajectories, without secrets. Written by the loop setup, part of the run id, and parsed
 * here where a run is read back (resume, replay), never read through casts.
 *
 * @module
 */
import { z } from "zod";
import type { Expect, Same } from "../../core/same_type.ts";

/** What a `replay:RUN|SESSION` model records about its source. */
export interface ReplaySettings {
  /** The run or session replayed. */
  id: string;
  /** The model whose responses were recorded. */
  model: string;
  /** The digest of the replayed sessions' heads. */
  record_sha256: string;
  /** Whether a whole run or one session is replayed. */
  source: "run" | "session";
}

/**
 * The provider options a run was made with (`--temperature`, ...), each recorded only when given;
 * a secret header's value is `[redacted]`.
 */
export interface ProviderSettings {
  /** `--temperature`. */
  temperature?: number;
  /** `--max-output-tokens`. */
  max_output_tokens?: number;
  /** `--reasoning-effort`. */
  reasoning_effort?: "low" | "medium" | "high";
  /** `--header K:V`, by lower-case name. */
  headers?: Record<string, string>;
  /** `--retries`. */
  retries?: number;
}

/** The loop agent's recorded settings. */
export interface LoopSettings {
  /** The model endpoint without credentials; null for models with none (scripted, replay). */
  base_url: string | null;
  /** `default`, or the `--policy` file. */
  policy: string;
  /** The `--prices` file, or null. */
  prices_file: string | null;
  /** The prices file's SHA-256, or null. */
  prices_sha256: string | null;
  /** `priced`, or `unknown` under `--no-cost`. */
  cost: "priced" | "unknown";
  /**
   * The tools Verdict's loop offers, by name; absent for an installed agent, which brings its own
   * (runs recorded before listed the loop's tools for it too).
   */
  tools?: string[];
  /** The replayed record, for a `replay:` model. */
  replay?: ReplaySettings;
  /** The provider options, when any was given (absent otherwise, so run ids stay as they were). */
  provider_options?: ProviderSettings;
}

const SCHEMA = z.object({
  base_url: z.string().nullable(),
  policy: z.string(),
  prices_file: z.string().nullable(),
  prices_sha256: z.string().nullable(),
  cost: z.enum(["priced", "unknown"]),
  tools: z.array(z.string()).optional(),
  replay: z.object({
    id: z.string(),
    model: z.string(),
    record_sha256: z.string(),
    source: z.enum(["run", "session"]),
  }).optional(),
  provider_options: z.object({
    temperature: z.number().optional(),
    max_output_tokens: z.number().int().min(1).optional(),
    reasoning_effort: z.enum(["low", "medium", "high"]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    retries: z.number().int().min(0).optional(),
  }).optional(),
});
type _SchemaMatchesLoopSettings = Expect<Same<z.output<typeof SCHEMA>, LoopSettings>>;

/** The schema of {@linkcode LoopSettings}, for the run configuration's. */
export const LOOP_SETTINGS_SCHEMA: z.ZodType<LoopSettings> = SCHEMA;
