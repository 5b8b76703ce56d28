import assert from "node:assert/strict";
import { LogicalClock } from "../../src/core/clock.ts";
import { systemClock } from "../../src/core/system_clock.ts";
import { EndpointGate, throughGate } from "../../src/model/endpoint_gate.ts";

Deno.test("at most N attempts are out at once, and every waiting one gets its turn", async () => {
  const gate = new EndpointGate(2, new LogicalClock());
  const signal = new AbortController().signal;
  let out = 0;
  let most = 0;
  const attempts = Array.from({ length: 7 }, () =>
    throughGate(gate, signal, async () => {
      most = Math.max(most, ++out);
      await new Promise((resolve) => setTimeout(resolve, 5));
      out--;
    }));
  await Promise.all(attempts);
  // Two slots are taken at once (before any attempt can end); never a third.
  assert.equal(most, 2);
});

Deno.test("a back-off asked for by one call holds every call back on the clock", async () => {
  const clock = new LogicalClock({ start: 0, tick: 0 });
  const gate = new EndpointGate(4, clock);
  const signal = new AbortController().signal;
  gate.backOff(1_500);
  const release = await gate.enter(signal);
  assert(clock.monotonic() >= 1_500, `entered at ${clock.monotonic()}`);
  release();
});

Deno.test("a call interrupted while it waits gives its place up, and the slot count stays whole", async () => {
  const gate = new EndpointGate(1, systemClock);
  const held = await gate.enter(new AbortController().signal);
  const interrupted = new AbortController();
  const waiting = gate.enter(interrupted.signal);
  interrupted.abort(new Error("stopped"));
  await assert.rejects(waiting, /stopped/);
  held();
  const again = await gate.enter(new AbortController().signal);
  again();
  const [first, second] = [
    await gate.enter(new AbortController().signal),
    gate.enter(AbortSignal.timeout(50)),
  ];
  await assert.rejects(second, "one slot, still one");
  first();
});
