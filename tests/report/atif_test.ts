import assert from "node:assert/strict";
import { readClaudeCodeTranscript } from "../../src/agent/claude_code_transcript.ts";
import { readCodexTranscript } from "../../src/agent/codex_transcript.ts";
import type { GatewayAnswer } from "../../src/gateway/gateway.ts";
import { messages } from "../../src/gateway/messages.ts";
import { recordExchange } from "../../src/gateway/recording.ts";
import type { ModelResponse, ToolCall } from "../../src/model/model.ts";
import { SCRIPTED_PRICE } from "../../src/model/prices.ts";
import { type AtifTrajectory, readAtif } from "../../src/report/atif.ts";
import { type CatalogueEvent, EVENT, event } from "../../src/store/event_catalogue.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { gatewayCall } from "../gateway/_calls.ts";
import { ATIF_TRAJECTORY } from "./_atif_schema.ts";

const HASH = "0".repeat(64);
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

type Batch = { at: number | null; events: CatalogueEvent[] };

/**
 * The ATIF of a session recorded as `batches` (or as what `record` makes, given the store for its
 * blobs): each batch appended at its time, or with none.
 */
function atifOf(batches: Batch[] | ((store: Store) => Batch[])): AtifTrajectory {
  const store = openStore(":memory:");
  using _closed = { [Symbol.dispose]: () => store.close() };
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  const recorded = typeof batches === "function" ? batches(store) : batches;
  for (const batch of recorded) store.events.append("s", batch.events, batch.at);
  return readAtif(store, { id: "s", task: "t", repeat: 0 });
}

function valid(atif: AtifTrajectory): void {
  const checked = ATIF_TRAJECTORY.safeParse(JSON.parse(JSON.stringify(atif)));
  assert(checked.success, checked.error?.message);
}

const started = (agent: string) =>
  event(EVENT.trialStarted, { task: "t", repeat: 0, agent, image: "verdict/busybox" });

Deno.test("the transcribed schema refuses what Harbor's models refuse", () => {
  const ok = {
    schema_version: "ATIF-v1.7",
    session_id: "s",
    agent: { name: "a", version: "1" },
    steps: [
      { step_id: 1, source: "user", message: "Create hello.txt." },
      {
        step_id: 2,
        timestamp: "2026-01-02T03:04:05.000Z",
        source: "agent",
        message: "",
        tool_calls: [{ tool_call_id: "c1", function_name: "bash", arguments: { cmd: "ls" } }],
        observation: { results: [{ source_call_id: "c1", content: "a" }] },
        metrics: { prompt_tokens: 3, completion_tokens: 1 },
      },
    ],
  };
  assert(ATIF_TRAJECTORY.safeParse(ok).success);
  const broken = (change: (copy: typeof ok) => void) => {
    const copy = structuredClone(ok);
    change(copy);
    return ATIF_TRAJECTORY.safeParse(copy).success;
  };
  assert(!broken((copy) => (copy.steps[1].step_id = 3)), "step ids must run from 1");
  assert(!broken((copy) => (copy.steps[1].observation!.results[0].source_call_id = "c2")));
  assert(!broken((copy) => Object.assign(copy.steps[0], { metrics: { prompt_tokens: 1 } })));
  assert(!broken((copy) => Object.assign(copy.steps[1], { llm_call_count: 0 })));
  assert(!broken((copy) => Object.assign(copy, { unknown: 1 })));
  assert(!broken((copy) => (copy.steps[1].timestamp = "yesterday")));
  assert(!broken((copy) => (copy.schema_version = "ATIF-v2.0")));
  assert(!broken((copy) => (copy.steps = [])));
});

Deno.test("a loop session: the instruction, each turn with its calls, results, policy and metrics", () => {
  const response: ModelResponse = {
    content: "Looking.",
    toolCalls: [
      { id: "call_1", name: "read_file", arguments: '{"path":"a.py"}' },
      { id: "call_2", name: "run", arguments: "not json" },
    ],
    finish: "tool_calls",
    usage: { input: 100, cachedInput: 20, output: 7 },
  };
  const atif = atifOf((store) => [
    {
      at: T0,
      events: [
        started("loop"),
        event(EVENT.loopStarted, {
          model: "scripted",
          policy: "default",
          policy_sha256: HASH,
          tools: ["read_file", "run"],
          system_prompt_sha256: HASH,
          limits: {},
          context: {},
        }),
        event(EVENT.modelRequest, {
          step: 1,
          fingerprint: HASH,
          request: {
            system: HASH,
            tools: HASH,
            max_output_tokens: 10,
            messages: [store.blobs.putText(JSON.stringify({ role: "user", content: "Fix it." }))],
            prefix: 0,
          },
        }),
      ],
    },
    {
      at: T0 + 1500,
      events: [event(EVENT.modelResponse, { step: 1, response, cost_usd: "0.00125" })],
    },
    {
      at: T0 + 1600,
      events: [
        event(EVENT.policyDecision, {
          step: 1,
          call_id: "call_1",
          tool: "read_file",
          allowed: true,
          rule: 5,
          reason: "allowed",
          subject: "a.py",
        }),
        event(EVENT.toolResult, {
          step: 1,
          call_id: "call_1",
          tool: "read_file",
          content: "x = 1",
          is_error: false,
        }),
        event(EVENT.policyDecision, {
          step: 1,
          call_id: "call_2",
          tool: "run",
          allowed: false,
          rule: 2,
          reason: "no",
          subject: "run",
        }),
        event(EVENT.toolResult, {
          step: 1,
          call_id: "call_2",
          tool: "run",
          content: "denied",
          is_error: true,
        }),
        event(EVENT.agentStopped, {
          stop_reason: "completed",
          detail: null,
          counters: {
            steps: 1,
            toolCalls: 2,
            compactions: 0,
            deniedCalls: 1,
            totalTokens: 127,
            finished: true,
            resumed: false,
            cost_usd: "1250",
          },
          tokens: { input: 120, output: 7 },
        }),
        event(EVENT.trialVerdict, {
          verdict: "fail",
          bucket: "agent_failure",
          reason: "tests failed",
          steps: 1,
          tokens: { input: 120, output: 7 },
          cost_usd: 0.00125,
        }),
      ],
    },
  ]);
  valid(atif);
  assert.deepEqual(atif.agent, {
    name: "loop",
    version: atif.agent.version,
    model_name: "scripted",
  });
  assert.deepEqual(atif.steps[0], {
    step_id: 1,
    timestamp: "2026-01-02T03:04:05.000Z",
    source: "user",
    message: "Fix it.",
  });
  assert.equal(atif.steps.length, 2);
  const step = atif.steps[1];
  assert.equal(step.step_id, 2);
  assert.equal(step.timestamp, "2026-01-02T03:04:06.500Z");
  assert.equal(step.source, "agent");
  assert.equal(step.message, "Looking.");
  assert.equal(step.llm_call_count, 1);
  assert.deepEqual(step.metrics, {
    prompt_tokens: 120,
    completion_tokens: 7,
    cached_tokens: 20,
    cost_usd: 0.00125,
  });
  assert.deepEqual(step.tool_calls, [
    { tool_call_id: "call_1", function_name: "read_file", arguments: { path: "a.py" } },
    {
      tool_call_id: "call_2",
      function_name: "run",
      arguments: {},
      extra: { raw_arguments: "not json" },
    },
  ]);
  assert.deepEqual(step.observation?.results, [
    {
      source_call_id: "call_1",
      content: "x = 1",
      extra: { is_error: false, policy: { allowed: true, rule: 5, reason: "allowed" } },
    },
    {
      source_call_id: "call_2",
      content: "denied",
      extra: { is_error: true, policy: { allowed: false, rule: 2, reason: "no" } },
    },
  ]);
  assert.deepEqual(atif.final_metrics, {
    total_prompt_tokens: 120,
    total_completion_tokens: 7,
    total_cached_tokens: 20,
    total_cost_usd: 0.00125,
    total_steps: 2,
  });
  assert.deepEqual(atif.extra.verdict, {
    verdict: "fail",
    bucket: "agent_failure",
    reason: "tests failed",
  });
});

Deno.test("Claude Code's recorded transcript alone: a step per model turn, no metrics, no times", async () => {
  const stdout = await Deno.readTextFile("tests/fixtures/transcripts/claude-code.stdout.jsonl");
  const transcript = readClaudeCodeTranscript(stdout);
  const atif = atifOf([{
    at: T0,
    events: [
      started("claude-code@2.1.3"),
      event(EVENT.agentTranscript, { agent: "claude-code", ...transcript }),
    ],
  }]);
  valid(atif);
  assert.deepEqual(atif.agent, { name: "claude-code", version: "2.1.3" });
  assert(atif.steps.length > 0);
  const calls = transcript.steps.filter((step) => step.type === "tool_call");
  const exported = atif.steps.flatMap((step) => step.tool_calls ?? []);
  assert.deepEqual(exported.map((call) => call.tool_call_id), calls.map((call) => call.id));
  for (const step of atif.steps) {
    assert.equal(step.source, "agent");
    assert.equal(step.timestamp, undefined);
    assert.equal(step.metrics, undefined);
    assert.equal(step.extra?.from_transcript, true);
  }
  const commands = exported.flatMap((call) =>
    typeof call.extra?.command === "string" ? [call.extra.command] : []
  );
  assert(commands.length > 0, "the transcript's shell commands are kept");
  assert.equal(atif.final_metrics.total_steps, atif.steps.length);
});

Deno.test("Codex's transcript alone is valid ATIF too", async () => {
  const stdout = await Deno.readTextFile("tests/fixtures/transcripts/codex.stdout.jsonl");
  const atif = atifOf([{
    at: T0,
    events: [
      started("codex@0.1.0"),
      event(EVENT.agentTranscript, { agent: "codex", ...readCodexTranscript(stdout) }),
    ],
  }]);
  valid(atif);
  assert(atif.steps.some((step) => (step.tool_calls ?? []).length > 0));
});

Deno.test("gateway calls are agent steps with their time and metrics; the transcript adds commands", () => {
  const exchange = (number: number, content: string, toolCalls: ToolCall[]) => {
    const call = gatewayCall(number, "messages", { model: "m", stream: true }, true);
    const answer: GatewayAnswer = messages.render(call, {
      content,
      toolCalls,
      finish: toolCalls.length > 0 ? "tool_calls" : "stop",
      usage: { input: 100, cachedInput: 0, output: 10 },
    });
    return recordExchange(call, answer, SCRIPTED_PRICE);
  };
  const atif = atifOf([
    { at: T0, events: [started("claude-code@2.1.3")] },
    {
      at: T0 + 1000,
      events: exchange(1, "Let me look.", [
        { id: "toolu_1", name: "Bash", arguments: '{"command":"ls -a"}' },
      ]),
    },
    { at: T0 + 2000, events: exchange(2, "Done.", []) },
    {
      at: T0 + 3000,
      events: [event(EVENT.agentTranscript, {
        agent: "claude-code",
        duration_ms: 900,
        unread_lines: 0,
        steps: [
          { type: "tool_call", id: "toolu_1", name: "Bash", command: "ls -a", input: "{}" },
          {
            type: "tool_result",
            id: "toolu_1",
            output: "README.md",
            is_error: false,
            exit_code: 0,
          },
        ],
      })],
    },
  ]);
  valid(atif);
  assert.equal(atif.agent.model_name, "m");
  assert.deepEqual(atif.steps.map((step) => step.timestamp), [
    "2026-01-02T03:04:06.000Z",
    "2026-01-02T03:04:07.000Z",
  ]);
  assert.deepEqual(atif.steps[0].tool_calls, [{
    tool_call_id: "toolu_1",
    function_name: "Bash",
    arguments: { command: "ls -a" },
    extra: { command: "ls -a", by_agent: true },
  }]);
  assert.deepEqual(atif.steps[0].observation?.results, [{
    source_call_id: "toolu_1",
    content: "README.md",
    extra: { is_error: false, exit_code: 0 },
  }]);
  assert.equal(atif.steps[0].metrics?.prompt_tokens, 100);
  assert.equal(atif.final_metrics.total_completion_tokens, 20);
});

Deno.test("the oracle's run is a deterministic dispatch; an empty session still has a step", () => {
  const oracle = atifOf([{
    at: T0,
    events: [
      started("oracle"),
      event(EVENT.agentOracle, { exit_code: 0, timed_out: false, stdout: "applied\n", stderr: "" }),
    ],
  }]);
  valid(oracle);
  assert.deepEqual(oracle.steps, [{
    step_id: 1,
    timestamp: "2026-01-02T03:04:05.000Z",
    source: "agent",
    llm_call_count: 0,
    message: "oracle: applied the reference solution (exit 0)",
    observation: { results: [{ content: "applied\n" }] },
    extra: { exit_code: 0, timed_out: false },
  }]);
  assert.equal(oracle.final_metrics.total_prompt_tokens, 0);

  const empty = atifOf([]);
  valid(empty);
  assert.equal(empty.agent.name, "unknown");
  assert.deepEqual(empty.steps.map((step) => step.source), ["system"]);
});
