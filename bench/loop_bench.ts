/**
 * The loop's own overhead per step, model and tool time excluded: an instant model and an instant
 * tool drive 200 steps against a real SQLite event log; the figure is the mean wall time of the
 * steps taken while the history holds 200 to 400 messages. Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import { loopAgent } from "../src/agent/loop_agent.ts";
import { heuristicCounter } from "../src/model/tokens.ts";
import { DEFAULT_POLICY } from "../src/policy/default_policy.ts";
import { openStore } from "../src/store/store.ts";
import { finishTool } from "../src/tools/finish_tool.ts";
import { instantModel, instantReadTool, roomyTask, storeContext } from "./_instant_loop.ts";
import { scratchFolder } from "./_measure.ts";

const STEPS = 200;
const MEASURED_FROM = 100; // from step 100 on, the history holds at least 200 messages

await using dir = await scratchFolder("loop-bench");
const store = openStore(join(dir.path, "verdict.db"));
store.runs.create({ id: "bench", config: {}, createdAt: 0 });
store.runs.createSession({ id: "bench-session", run: "bench", task: "bench", repeat: 0 });
const stepStarts: number[] = [];
const agent = loopAgent({
  createModel: () => Promise.resolve(instantModel(STEPS, () => stepStarts.push(performance.now()))),
  policyFor: () => DEFAULT_POLICY,
  priceFor: () => null,
  counter: heuristicCounter,
  tools: [instantReadTool, finishTool],
});
const outcome = await agent.run(storeContext(store, "bench-session", roomyTask(STEPS)));
store.close();
if (outcome.stopReason !== "completed") {
  throw new Error(`the loop stopped with ${outcome.stopReason}`);
}
const measured = stepStarts.slice(MEASURED_FROM, STEPS + 1);
const perStep = (measured.at(-1)! - measured[0]) / (measured.length - 1);
console.log(
  `loop overhead: ${perStep.toFixed(3)} ms per step with a history of ${2 * MEASURED_FROM}-${
    2 * STEPS
  } ` +
    `messages (context fitting, token counting, request hashing, policy, event log; target <= 1 ms)`,
);
