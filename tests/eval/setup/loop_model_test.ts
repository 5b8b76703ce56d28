import assert from "node:assert/strict";
import { LogicalClock } from "../../../src/core/clock.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { loopModel, normalizedBaseUrl } from "../../../src/eval/setup/loop_model.ts";

Deno.test("a base URL is made what the provider's client needs, or refused naming the fix", () => {
  assert.equal(normalizedBaseUrl("openai", "http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1");
  assert.equal(normalizedBaseUrl("openai", "http://127.0.0.1:8000/"), "http://127.0.0.1:8000/v1");
  assert.equal(normalizedBaseUrl("openai", "http://h/v1"), "http://h/v1");
  assert.equal(
    normalizedBaseUrl("openai", "https://h/openai/deployments/x"),
    "https://h/openai/deployments/x",
  );
  assert.equal(normalizedBaseUrl("anthropic", "https://h/v1"), "https://h");
  assert.equal(normalizedBaseUrl("anthropic", "https://h"), "https://h");
  assert.throws(
    () => normalizedBaseUrl("openai", "ftp://h/v1"),
    (error: Error) => error instanceof UsageError && /must start with http/.test(error.message),
  );
});

Deno.test("a provider's own endpoint without its key is refused, naming the variable; a server of one's own may take none", () => {
  const choices = (env: Record<string, string>) => ({
    model: "openai:gpt-test",
    noCost: true,
    env: (name: string) => env[name],
    clock: new LogicalClock(),
  });
  for (
    const [spec, name] of [["openai", "OPENAI_API_KEY"], [
      "anthropic",
      "ANTHROPIC_API_KEY",
    ]] as const
  ) {
    assert.throws(
      () => loopModel({ kind: spec, model: "m" }, `${spec}:m`, choices({}), undefined),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(`${spec}:m needs an API key: set ${name}`),
    );
  }
  const local = loopModel({ kind: "openai", model: "m" }, "openai:m", {
    ...choices({}),
    baseUrl: "http://127.0.0.1:8000",
  }, undefined);
  assert.equal(local.baseUrl, "http://127.0.0.1:8000/v1");
  const fromEnv = loopModel(
    { kind: "openai", model: "m" },
    "openai:m",
    choices({ OPENAI_BASE_URL: "http://127.0.0.1:9/" }),
    undefined,
  );
  assert.equal(fromEnv.baseUrl, "http://127.0.0.1:9/v1");
});
