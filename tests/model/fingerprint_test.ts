import assert from "node:assert/strict";
import { fingerprint, RequestFingerprinter } from "../../src/model/fingerprint.ts";
import type { Message, ModelRequest } from "../../src/model/model.ts";

const user = (content: string): Message => ({ role: "user", content });
const request = (messages: Message[], system = "sys"): ModelRequest => ({
  system,
  messages,
  tools: [],
  maxOutputTokens: 100,
});

Deno.test("the incremental fingerprint equals the one computed from scratch, through growth and compaction", () => {
  const fingerprinter = new RequestFingerprinter();
  let messages = [user("task")];
  for (let step = 0; step < 30; step++) {
    messages = [...messages, user(`step ${step}`)];
    if (step % 7 === 6) messages = [messages[0], ...messages.slice(4)]; // a compaction drops turns
    const incremental = fingerprinter.fingerprint(request(messages));
    assert.equal(
      incremental.fingerprint,
      fingerprint(request(structuredClone(messages))),
      `step ${step}`,
    );
    assert.equal(incremental.manifest.messages.length, messages.length);
  }
});

Deno.test("any change to the system prompt, a message, a tool or a parameter changes the fingerprint", () => {
  const base = request([user("task"), user("a")]);
  const prints = new Set([
    fingerprint(base),
    fingerprint({ ...base, system: "sys!" }),
    fingerprint({ ...base, messages: [user("task"), user("b")] }),
    fingerprint({ ...base, messages: [user("task")] }),
    fingerprint({ ...base, maxOutputTokens: 101 }),
    fingerprint({ ...base, tools: [{ name: "t", description: "d", parameters: {} }] }),
  ]);
  assert.equal(prints.size, 6);
  assert.equal(fingerprint(base), fingerprint(structuredClone(base)));
});
