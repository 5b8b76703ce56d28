/**
 * Harbor's Agent Trajectory Interchange Format (ATIF) as zod schemas, transcribed (not imported)
 * to check what Verdict writes against the published format, with each object strict as
 * Harbor's pydantic models are (`extra = "forbid"`).
 *
 * Read from:
 * - the RFC, github.com/harbor-framework/harbor `rfcs/0001-trajectory-format.md` (formerly
 *   `docs/rfcs/`, laude-institute/harbor), "v1.7 (Current)": root `session_id` optional,
 *   `trajectory_id`, `subagent_trajectories`, `extra` on tool calls and observation results,
 *   `llm_call_count` on steps;
 * - Harbor's pydantic models `src/harbor/models/trajectories/` (`step.py` read in full: fields,
 *   `step_id >= 1`, ISO 8601 `timestamp`, the agent-only fields, the `llm_call_count == 0`
 *   rule), and `trajectory.py`'s validators (step ids sequential from 1, every `source_call_id`
 *   naming a tool call of the same step) as ported, "adapted from Harbor 0.20.0", with the other
 *   models (Agent, Metrics, FinalMetrics, ToolCall, ObservationResult, SubagentTrajectoryRef,
 *   ContentPart).
 *
 * @module
 */
import { z } from "zod";

const extra = z.record(z.string(), z.unknown()).nullish();

const imageSource = z.strictObject({
  media_type: z.enum(["image/jpeg", "image/png", "image/gif", "image/webp"]),
  path: z.string(),
});

const contentPart = z.strictObject({
  type: z.enum(["text", "image"]),
  text: z.string().nullish(),
  source: imageSource.nullish(),
}).refine(
  (part) =>
    part.type === "text"
      ? part.text != null && part.source == null
      : part.source != null && part.text == null,
  { message: "a text part has text and no source; an image part a source and no text" },
);

const content = z.union([z.string(), z.array(contentPart)]);

/** ATIF's `AgentSchema`. */
export const ATIF_AGENT = z.strictObject({
  name: z.string(),
  version: z.string(),
  model_name: z.string().nullish(),
  tool_definitions: z.array(z.record(z.string(), z.unknown())).nullish(),
  extra,
});

/** ATIF's `MetricsSchema`. */
export const ATIF_METRICS = z.strictObject({
  prompt_tokens: z.number().int().nullish(),
  completion_tokens: z.number().int().nullish(),
  cached_tokens: z.number().int().nullish(),
  cost_usd: z.number().nullish(),
  prompt_token_ids: z.array(z.number().int()).nullish(),
  completion_token_ids: z.array(z.number().int()).nullish(),
  logprobs: z.array(z.number()).nullish(),
  extra,
});

/** ATIF's `FinalMetricsSchema`. */
export const ATIF_FINAL_METRICS = z.strictObject({
  total_prompt_tokens: z.number().int().nullish(),
  total_completion_tokens: z.number().int().nullish(),
  total_cached_tokens: z.number().int().nullish(),
  total_cost_usd: z.number().nullish(),
  total_steps: z.number().int().min(0).nullish(),
  extra,
});

/** ATIF's `ToolCallSchema`. */
export const ATIF_TOOL_CALL = z.strictObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  extra,
});

const subagentTrajectoryRef = z.strictObject({
  trajectory_id: z.string().nullish(),
  session_id: z.string().nullish(),
  trajectory_path: z.string().nullish(),
  extra,
}).refine((ref) => ref.trajectory_id != null || ref.trajectory_path != null, {
  message: "a subagent reference needs trajectory_id or trajectory_path",
});

/** ATIF's `ObservationResultSchema`. */
export const ATIF_OBSERVATION_RESULT = z.strictObject({
  source_call_id: z.string().nullish(),
  content: content.nullish(),
  subagent_trajectory_ref: z.array(subagentTrajectoryRef).nullish(),
  extra,
});

const AGENT_ONLY = [
  "model_name",
  "reasoning_effort",
  "reasoning_content",
  "tool_calls",
  "metrics",
] as const;

/** ATIF's `StepObject`. */
export const ATIF_STEP = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: z.string().refine((text) => !Number.isNaN(Date.parse(text)), {
    message: "is not an ISO 8601 timestamp",
  }).nullish(),
  source: z.enum(["system", "user", "agent"]),
  model_name: z.string().nullish(),
  reasoning_effort: z.union([z.string(), z.number()]).nullish(),
  message: content,
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(ATIF_TOOL_CALL).nullish(),
  observation: z.strictObject({ results: z.array(ATIF_OBSERVATION_RESULT) }).nullish(),
  metrics: ATIF_METRICS.nullish(),
  is_copied_context: z.boolean().nullish(),
  llm_call_count: z.number().int().min(0).nullish(),
  extra,
}).superRefine((step, context) => {
  if (step.source !== "agent") {
    for (const field of AGENT_ONLY) {
      if (step[field] != null) {
        context.addIssue({
          code: "custom",
          message: `'${field}' is only for agent steps, not ${step.source}`,
        });
      }
    }
  }
  if (step.source === "agent" && step.llm_call_count === 0) {
    for (const field of ["metrics", "reasoning_content"] as const) {
      if (step[field] != null) {
        context.addIssue({
          code: "custom",
          message: `'${field}' must be absent when llm_call_count is 0`,
        });
      }
    }
  }
});

/** ATIF's root object, `ATIF-v1.0` to `ATIF-v1.7`. */
export const ATIF_TRAJECTORY = z.strictObject({
  schema_version: z.enum([
    "ATIF-v1.0",
    "ATIF-v1.1",
    "ATIF-v1.2",
    "ATIF-v1.3",
    "ATIF-v1.4",
    "ATIF-v1.5",
    "ATIF-v1.6",
    "ATIF-v1.7",
  ]),
  session_id: z.string().nullish(),
  trajectory_id: z.string().nullish(),
  agent: ATIF_AGENT,
  steps: z.array(ATIF_STEP).min(1),
  notes: z.string().nullish(),
  final_metrics: ATIF_FINAL_METRICS.nullish(),
  continued_trajectory_ref: z.string().nullish(),
  extra,
  // Embedded subagents are whole trajectories; Verdict writes none, so their shape is not followed.
  subagent_trajectories: z.array(z.record(z.string(), z.unknown())).nullish(),
}).superRefine((trajectory, context) => {
  trajectory.steps.forEach((step, index) => {
    if (step.step_id !== index + 1) {
      context.addIssue({
        code: "custom",
        message: `steps[${index}].step_id is ${step.step_id}, not ${index + 1} (sequential from 1)`,
      });
    }
    const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    for (const result of step.observation?.results ?? []) {
      if (result.source_call_id != null && !ids.has(result.source_call_id)) {
        context.addIssue({
          code: "custom",
          message: `step ${step.step_id}: source_call_id '${result.source_call_id}' names no ` +
            `tool call of the step`,
        });
      }
    }
  });
});
