/**
 * Replaying a synthetic 1,000-step session: the session is recorded into a real SQLite file by
 * the loop with an instant model and tool, then replayed the way `verdict replay` does it (the
 * log read back and checked, every request re-fingerprinted against the record, answers and
 * results from the record). Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import { loopAgent } from "../src/agent/loop_agent.ts";
import { sessionDriver } from "../src/eval/trial/session_driver.ts";
import { heuristicCounter } from "../src/model/tokens.ts";
import { DEFAULT_POLICY } from "../src/policy/default_policy.ts";
import { openStore } from "../src/store/store.ts";
import { finishTool } from "../src/tools/finish_tool.ts";
import { instantModel, instantReadTool, roomyTask, storeContext } from "./_instant_loop.ts";
import { scratchFolder } from "./_measure.ts";

const STEPS = 1_000;
const options = {
  policyFor: () => DEFAULT_POLICY,
  priceFor: () => null,
  counter: heuristicCounter,
  tools: [instantReadTool, finishTool],
};

await using dir = await scratchFolder("replay-bench");
const path = join(dir.path, "verdict.db");
const task = roomyTask(STEPS);
const recording = openStore(path);
recording.runs.create({ id: "bench", config: {}, createdAt: 0 });
recording.runs.createSession({ id: "bench-session", run: "bench", task: "bench", repeat: 0 });
const recorded = await loopAgent({
  ...options,
  createModel: () => Promise.resolve(instantModel(STEPS)),
})
  .run(storeContext(recording, "bench-session", task));
recording.close();

const start = performance.now();
const store = openStore(path);
const driver = sessionDriver(store.events.read("bench-session"));
const replayed = await loopAgent({
  ...options,
  createModel: () => Promise.resolve(driver.wrapModel(null)),
  runTool: driver.runTool(false),
}).run({ ...storeContext(store, "bench-session", task), record: () => {} });
const seconds = (performance.now() - start) / 1000;
store.close();
if (replayed.counters.steps !== recorded.counters.steps || replayed.stopReason !== "completed") {
  throw new Error(`the replay diverged: ${replayed.counters.steps} steps, ${replayed.stopReason}`);
}
console.log(
  `replay of a ${STEPS + 1}-step session (${driver.recorded.length} events): ${
    seconds.toFixed(3)
  } s ` +
    `(target <= 1 s)`,
);
