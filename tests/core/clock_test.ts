import assert from "node:assert/strict";
import {
  type ClockReading,
  LogicalClock,
  RecordedClock,
  recordingClock,
} from "../../src/core/clock.ts";
import { systemClock } from "../../src/core/system_clock.ts";

Deno.test("a logical clock advances by its tick per reading and by sleeps, without waiting", async () => {
  const clock = new LogicalClock({ start: 1000, tick: 10 });
  assert.deepEqual(clock.now(), 1000);
  assert.deepEqual(clock.monotonic(), 10);
  await clock.sleep(60_000);
  assert.deepEqual(clock.now(), 61_020);
});

Deno.test("a recording clock's readings replay identically through a recorded clock", () => {
  const readings: ClockReading[] = [];
  const live = recordingClock(new LogicalClock({ tick: 7 }), (reading) => readings.push(reading));
  const seen = [live.now(), live.monotonic(), live.now()];
  const replay = new RecordedClock(readings);
  assert.deepEqual([replay.now(), replay.monotonic(), replay.now()], seen);
  assert.throws(() => replay.now(), {
    name: "ClockDivergence",
    message: /after\ all\ 3\ recorded\ readings/,
  });
});

Deno.test("a recorded clock read in another order diverges", () => {
  const replay = new RecordedClock([{ kind: "now", value: 1 }]);
  assert.throws(() => replay.monotonic(), {
    name: "ClockDivergence",
    message: /recorded\ as\ now\ but\ replayed\ as\ monotonic/,
  });
});

Deno.test("sleeps reject when their signal aborts", async () => {
  const controller = new AbortController();
  const sleeping = systemClock.sleep(10_000, controller.signal);
  controller.abort(new Error("stop"));
  await assert.rejects(sleeping, { message: /stop/ });
  await assert.rejects(new LogicalClock().sleep(1, controller.signal), { message: /stop/ });
});
