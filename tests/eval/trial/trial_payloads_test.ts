import assert from "node:assert/strict";
import type { AgentOutcome } from "../../../src/agent/agent.ts";
import { withAgentStop } from "../../../src/eval/trial/trial_payloads.ts";
import type { Grade } from "../../../src/grading/grade.ts";
import { ZERO_COUNTERS } from "../../../src/store/run_counters.ts";

const FAILED: Grade = {
  verdict: "fail",
  bucket: "agent_failure",
  reason: "tests failed (tests/test.sh exited 1)",
  checks: [],
  requirements: [],
  success: null,
  canary: null,
};
const PROVIDER_DOWN: AgentOutcome = {
  stopReason: "error",
  counters: ZERO_COUNTERS,
  tokens: { input: 0, output: 0 },
  providerFailure: { calls: 2, first: "openai endpoint unavailable after 5 attempts: HTTP 503: x" },
};

Deno.test("a provider's failure makes the agent's failure infrastructure's, but not a broken task's, tampering or a pass", () => {
  assert.equal(withAgentStop(FAILED, PROVIDER_DOWN).bucket, "infrastructure_error");
  assert.match(withAgentStop(FAILED, PROVIDER_DOWN).reason, /^the model provider failed 2 calls: /);
  const broken = { ...FAILED, bucket: "evaluator_error" as const, reason: "no tests/test.sh" };
  assert.deepEqual(withAgentStop(broken, PROVIDER_DOWN), broken);
  const tampering = { ...FAILED, reason: "tampering: the canary tests/canary.sh passed" };
  assert.deepEqual(withAgentStop(tampering, PROVIDER_DOWN), tampering);
  const passed = { ...FAILED, verdict: "pass" as const, bucket: "pass" as const, reason: "ok" };
  assert.deepEqual(withAgentStop(passed, PROVIDER_DOWN), passed);
});
