/**
 * The size debt: files and functions under `src/` that were over the limits of
 * `lint/size_limits.ts` when the limits came in. The rules skip them while they do not grow; a
 * test fails when an entry is no longer over its limit, so a fixed entry is deleted here. The
 * list is emptied before issue 27 closes.
 *
 * @module
 */
import type { FileDebt, FunctionDebt } from "./size_limits.ts";

/** Files over 400 lines: path and lines when listed. */
export const FILE_DEBT: readonly FileDebt[] = [
  { path: "src/agent/loop_agent.ts", lines: 445 },
  { path: "src/grading/grade.ts", lines: 437 },
  { path: "src/grading/harbor_grade.ts", lines: 481 },
  { path: "src/store/event_catalogue.ts", lines: 495 },
  { path: "src/store/event_payloads.ts", lines: 532 },
];

/** Functions over 80 lines: path, name as the rule gives it, and lines when listed. */
export const FUNCTION_DEBT: readonly FunctionDebt[] = [
  { path: "src/agent/loop_agent.ts", name: "loopAgent", lines: 286 },
  { path: "src/agent/loop_agent.ts", name: "loopAgent.run", lines: 275 },
  { path: "src/agent/loop_agent.ts", name: "loopAgent.run.runCall", lines: 102 },
  { path: "src/kit/import_kit.ts", name: "importKit", lines: 101 },
  { path: "src/model/scripted_plan.ts", name: "plan", lines: 132 },
  { path: "src/policy/shell_words.ts", name: "tokenize", lines: 130 },
  { path: "src/report/trajectory.ts", name: "readTrajectory", lines: 116 },
];
