/**
 * The payload of every event kind, as the log stores it (field names are the stored ones). The
 * schemas that check them on read are in `event_catalogue.ts`, each held to its interface here by
 * the compiler.
 *
 * @module
 */
import type { Bucket, Verdict } from "./trial_record.ts";

/** Why an agent stopped. */
export type StoppedBecause =
  | "completed"
  | "max_steps"
  | "timeout"
  | "budget"
  | "refused"
  | "truncated"
  | "error";

/** Tokens in and out. */
export interface TokenCounts {
  /** Input tokens. */
  input: number;
  /** Output tokens. */
  output: number;
}

/** `trial.started`: a trial began. */
export interface TrialStartedPayload {
  /** The task id. */
  task: string;
  /** The repeat. */
  repeat: number;
  /** The agent's name. */
  agent: string;
  /** The task's image. */
  image: string;
}

/** `trial.resumed`: an interrupted trial went on, from the phase it had reached. */
export type TrialResumedPayload =
  | {
    /** The end state was sealed: it is graded. */
    phase: "grade";
    /** The sealed end state's snapshot root. */
    root: string;
  }
  | {
    /** The agent goes on, or its end state is sealed. */
    phase: "agent" | "seal";
    /** Whether its container survived or a new one was restored. */
    container: "reused" | "restored";
    /** The snapshot a restored container starts from. */
    root: string;
  };

/** `workspace.staged`: the task's workspace as staged. */
export interface WorkspaceStagedPayload {
  /** Its snapshot root. */
  root: string;
  /** How many entries it has. */
  entries: number;
}

/** `agent.oracle`: the reference solution was applied. */
export interface AgentOraclePayload {
  /** The applying script's exit code. */
  exit_code: number;
  /** Whether it ran past the deadline. */
  timed_out: boolean;
  /** Its stdout. */
  stdout: string;
  /** Its stderr. */
  stderr: string;
}

/** `agent.cmd`: an installed agent's command ran to its end. */
export interface AgentCmdPayload {
  /** The command (`--agent cmd:COMMAND`). */
  command: string;
  /** Its exit code (137 when killed). */
  exit_code: number;
  /** Whether the task's deadline killed it. */
  timed_out: boolean;
  /** Its stdout, head and tail when long. */
  stdout: string;
  /** Its stderr, head and tail when long. */
  stderr: string;
}

/** One step of an installed agent's own transcript, as Verdict reads it. */
export type TranscriptStep =
  | {
    /** The agent said something (text to the user, not a tool call). */
    type: "message";
    /** What it said. */
    text: string;
  }
  | {
    /** The agent called one of its tools. */
    type: "tool_call";
    /** The call's id in the transcript, which its result names. */
    id: string;
    /** The tool's name, as the agent calls it (`Bash`, `command_execution`, ...). */
    name: string;
    /** The shell command it ran, for a shell tool; null for other tools. */
    command: string | null;
    /** The call's input as JSON text. */
    input: string;
  }
  | {
    /** A tool call's result. */
    type: "tool_result";
    /** The id of the call it answers. */
    id: string;
    /** The result's text. */
    output: string;
    /** Whether the agent's tool reported a failure. */
    is_error: boolean;
    /** The command's exit code, where the agent reports one. */
    exit_code: number | null;
  };

/** `agent.transcript`: an installed agent's own transcript, read into steps. */
export interface AgentTranscriptPayload {
  /** The installed agent (`claude-code`, `codex`). */
  agent: string;
  /** What it did, in order. */
  steps: TranscriptStep[];
  /** How long the agent says it ran, in milliseconds; null when it does not say. */
  duration_ms: number | null;
  /** Transcript lines that were not JSON, or not in a shape Verdict reads (kept in `agent.cmd`). */
  unread_lines: number;
}

/** `loop.started`: what the loop ran with. */
export interface LoopStartedPayload {
  /** The model spec, without secrets. */
  model: string;
  /** Where the policy came from. */
  policy: string;
  /** The policy rules' hash. */
  policy_sha256: string;
  /** The tools' names. */
  tools: string[];
  /** The system prompt's hash. */
  system_prompt_sha256: string;
  /** The task's limits. */
  limits: Record<string, unknown>;
  /** The task's context settings. */
  context: Record<string, unknown>;
}

/** `context.compacted`: the context was made to fit before a step. */
export interface ContextCompactedPayload {
  /** The step. */
  step: number;
  /** How. */
  strategy: "truncate" | "summarize";
  /** Messages removed. */
  removedMessages: number;
  /** Their tokens. */
  removedTokens: number;
  /** Tool results shortened. */
  shortenedResults: number;
  /** Request tokens before. */
  tokensBefore: number;
  /** After. */
  tokensAfter: number;
  /** The summary left in place of the removed turns (`summarize`). */
  summary?: string;
}

/** The blob hashes of a request's parts. */
export interface RecordedRequest {
  /** The system prompt's blob. */
  system: string;
  /** The tool schemas' blob. */
  tools: string;
  /** The output budget. */
  max_output_tokens: number;
  /**
   * The user's settings (`--temperature`, `--reasoning-effort`, `--header` with secret values
   * redacted); absent when none were chosen, and in records made before they existed.
   */
  parameters?: {
    temperature?: number;
    reasoning_effort?: "low" | "medium" | "high";
    headers?: Record<string, string>;
  };
  /** The blobs of the messages after the first `prefix`, which the previous request had. */
  messages: string[];
  /** How many leading messages it shares with the previous request. */
  prefix: number;
}

/** `model.request`: a request to the model. */
export interface ModelRequestPayload {
  /** The step. */
  step: number;
  /** The request's fingerprint (checked on replay and resume). */
  fingerprint: string;
  /** Its parts, as blob hashes. */
  request: RecordedRequest;
}

/** `model.retry`: a provider call failed and is tried again. */
export interface ModelRetryPayload {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Its HTTP status, or null when there was none. */
  status: number | null;
  /** What went wrong. */
  message: string;
  /** The wait before the next attempt, in ms. */
  waitMs: number;
}

/** A tool call as the model asked for it. */
export interface RecordedToolCall {
  /** The call's id. */
  id: string;
  /** The tool. */
  name: string;
  /** The arguments, as JSON text the model wrote. */
  arguments: string;
}

/** Tokens of one model call. */
export interface RecordedUsage {
  /** Input tokens not served from a cache. */
  input: number;
  /** Input tokens read from the cache. */
  cachedInput: number;
  /** Input tokens written to the cache; absent in older records. */
  cacheWriteInput?: number;
  /** Output tokens. */
  output: number;
}

/** The model's answer. */
export interface RecordedResponse {
  /** Its text. */
  content: string;
  /** The tools it wants called. */
  toolCalls: RecordedToolCall[];
  /** Why it stopped. */
  finish: "stop" | "tool_calls" | "length" | "refusal";
  /** Its tokens. */
  usage: RecordedUsage;
}

/** `model.response`: the model's answer and its cost. */
export interface ModelResponsePayload {
  /** The step. */
  step: number;
  /** The answer. */
  response: RecordedResponse;
  /** Its cost in dollars (decimal text), or null when unpriced. */
  cost_usd: string | null;
}

/** Which call of which step an event is about. */
export interface StepCall {
  /** The step. */
  step: number;
  /** The call's id. */
  call_id: string;
  /** The tool. */
  tool: string;
}

/** `policy.decision`: the policy's decision on a call. */
export interface PolicyDecisionPayload extends StepCall {
  /** Whether the call may run. */
  allowed: boolean;
  /** The deciding rule's index, or null when none matched. */
  rule: number | null;
  /** Why. */
  reason: string;
  /** What the rule saw. */
  subject: string;
}

/** `tool.intent`: a call is about to run (written first, so a crash leaves its trace). */
export interface ToolIntentPayload extends StepCall {
  /** The parsed arguments. */
  arguments: Record<string, unknown>;
  /** The key a resume recognises the call by. */
  idempotency_key: string;
  /** Whether running it twice is harmless. */
  idempotent: boolean;
}

/** `tool.result`: a call's result. */
export interface ToolResultPayload extends StepCall {
  /** What the model is told. */
  content: string;
  /** Whether it is an error. */
  is_error: boolean;
  /** The agent called `finish`. */
  finish?: true;
  /** The call's key, when it got as far as running. */
  idempotency_key?: string;
  /** Answered from the record on resume. */
  cached?: true;
  /** The harness stopped while it ran; whether it took effect is unknown. */
  outcome_unknown?: true;
}

/** `workspace.snapshot`: the workspace after a call that changed it. */
export interface WorkspaceSnapshotPayload {
  /** The step. */
  step: number;
  /** The call. */
  call_id: string;
  /** The snapshot root. */
  root: string;
}

/** `loop.stopped`: the loop stopped. */
export interface LoopStoppedPayload {
  /** Why. */
  stop_reason: StoppedBecause;
  /** In words, or null. */
  detail: string | null;
}

/** What the harness counted, as `agent.stopped` stores it. */
export interface RecordedCounters {
  /** Model steps. */
  steps: number;
  /** Tool calls. */
  toolCalls: number;
  /** Compactions. */
  compactions: number;
  /** Denied calls. */
  deniedCalls: number;
  /** Input plus output tokens. */
  totalTokens: number;
  /** Whether the agent stopped on its own. */
  finished: boolean;
  /** Whether the trial was resumed. */
  resumed: boolean;
  /** Cost in micro-dollars (an integer as decimal text), or null when unpriced. */
  cost_usd: string | null;
}

/** `agent.stopped`: how the agent ended, enough to rebuild its outcome on resume. */
export interface AgentStoppedPayload {
  /** Why it stopped. */
  stop_reason: StoppedBecause;
  /** In words, or null. */
  detail: string | null;
  /** What the harness counted. */
  counters: RecordedCounters;
  /** Tokens used. */
  tokens: TokenCounts;
  /**
   * Why the agent container's exec channel stopped working while the agent ran (its commands went
   * through `docker exec` from then on); absent when it did not.
   */
  exec_channel_lost?: string;
}

/** One path that differs between the staged and the sealed workspace. */
export interface RecordedChange {
  /** The path. */
  path: string;
  /** What happened to it. */
  change: "added" | "removed" | "modified";
  /** For `modified`: which aspects differ. */
  aspects?: ("content" | "mode" | "type" | "target")[];
}

/** `end_state.sealed`: the end state, frozen. */
export interface EndStateSealedPayload {
  /** Its snapshot root. */
  root: string;
  /** How it differs from the staged workspace. */
  changes: RecordedChange[];
}

/** A check's or requirement's result as grading records it. */
export interface RecordedCheck {
  /** The check's kind. */
  kind: string;
  /** Whether it held. */
  passed: boolean;
  /** What it found. */
  detail: string;
}

/** A requirement's result as grading records it. */
export interface RecordedRequirement {
  /** The requirement's key. */
  key: string;
  /** Whether it held. */
  passed: boolean;
  /** Expected and actual. */
  detail: string;
  /** Whether only a model-driven run can meet it. */
  modelOnly: boolean;
}

/** A grading script's run, less its output (which may hold timings). */
export interface ChainedScript {
  /** The script. */
  script: string;
  /** Its exit code. */
  exit_code: number;
  /** Whether it was killed at its deadline. */
  timed_out: boolean;
}

/** `grading.finished`: how grading decided. */
export interface GradingFinishedPayload {
  /** Pass or fail. */
  verdict: Verdict;
  /** The bucket. */
  bucket: Bucket;
  /** Why. */
  reason: string;
  /** Every check. */
  checks: RecordedCheck[];
  /** Every requirement. */
  requirements: RecordedRequirement[];
  /** The success script's run, when it ran. */
  success: ChainedScript | null;
  /** The canary's, when it ran. */
  canary: ChainedScript | null;
  /** A Harbor task's reward, when its verifier wrote one. */
  reward?: number;
}

/** `trial.verdict`: the trial's summary less its wall time, closing the log. */
export interface TrialVerdictPayload {
  /** Pass or fail. */
  verdict: Verdict;
  /** The bucket. */
  bucket: Bucket;
  /** Why. */
  reason: string;
  /** Model steps. */
  steps: number;
  /** Tokens. */
  tokens: TokenCounts;
  /** Dollars, or null when unpriced. */
  cost_usd: number | null;
  /** A Harbor trial's reward. */
  reward?: number;
}

/** `gateway.call`: a model call an agent made through the trial's gateway. */
export interface GatewayCallPayload {
  /** Its number in the trial, from 1. */
  number: number;
  /** Its wire format. */
  format: "chat_completions" | "responses" | "messages";
  /** Whether the agent asked for a stream. */
  stream: boolean;
  /** The model the agent named. */
  model: string;
  /** The request body exactly as the agent sent it (a blob when large, as any payload field). */
  body: string;
}

/** `gateway.answer`: what answered a gateway call, as the agent received it. */
export interface GatewayAnswerPayload {
  /** The call's number. */
  number: number;
  /** The HTTP status. */
  status: number;
  /** The content type. */
  content_type: string;
  /** The body exactly as sent to the agent (a blob when large). */
  body: string;
  /** Its tokens, from its usage block; null when it has none. */
  usage: RecordedUsage | null;
  /** Its cost in dollars (decimal text), or null when unpriced. */
  cost_usd: string | null;
}

/** Every event kind and its payload. */
export interface EventPayloads {
  /** A trial began. */
  "trial.started": TrialStartedPayload;
  /** An interrupted trial went on. */
  "trial.resumed": TrialResumedPayload;
  /** The workspace was staged. */
  "workspace.staged": WorkspaceStagedPayload;
  /** The oracle applied the solution. */
  "agent.oracle": AgentOraclePayload;
  /** The nop agent did nothing. */
  "agent.nop": Record<string, never>;
  /** An installed agent's command ran. */
  "agent.cmd": AgentCmdPayload;
  /** An installed agent's transcript, read. */
  "agent.transcript": AgentTranscriptPayload;
  /** The loop began. */
  "loop.started": LoopStartedPayload;
  /** The context was compacted. */
  "context.compacted": ContextCompactedPayload;
  /** A model request. */
  "model.request": ModelRequestPayload;
  /** A provider call is retried. */
  "model.retry": ModelRetryPayload;
  /** A model answer. */
  "model.response": ModelResponsePayload;
  /** A policy decision. */
  "policy.decision": PolicyDecisionPayload;
  /** A call about to run. */
  "tool.intent": ToolIntentPayload;
  /** A call's result. */
  "tool.result": ToolResultPayload;
  /** The workspace after a change. */
  "workspace.snapshot": WorkspaceSnapshotPayload;
  /** The loop stopped. */
  "loop.stopped": LoopStoppedPayload;
  /** The agent stopped. */
  "agent.stopped": AgentStoppedPayload;
  /** The end state was sealed. */
  "end_state.sealed": EndStateSealedPayload;
  /** Grading decided. */
  "grading.finished": GradingFinishedPayload;
  /** The trial's verdict, closing its log. */
  "trial.verdict": TrialVerdictPayload;
  /** A model call through the gateway. */
  "gateway.call": GatewayCallPayload;
  /** A gateway call's answer. */
  "gateway.answer": GatewayAnswerPayload;
}
