/**
 * A trajectory as text, for `verdict show`.
 *
 * @module
 */
import { formatUsd, usd } from "../core/money.ts";
import { totalInput } from "../model/model.ts";
import type { ReportedCheck, ReportedScript } from "../store/trial_record.ts";
import type { Trajectory } from "./trajectory.ts";
import type { TrajectoryGrading } from "./trajectory_types.ts";

/**
 * Renders a trajectory for a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trajectoryText } from "./trajectory_text.ts";
 * const text = trajectoryText({
 *   session: "s", task: "t", repeat: 0, instruction: "Do it.", steps: [], stop: null, verdict: null,
 *   grading: null,
 *   resumed: false, changes: [],
 * });
 * assert(text.startsWith("session s (t#0)"));
 * ```
 */
export function trajectoryText(trajectory: Trajectory): string {
  const lines: string[] = [];
  const verdict = trajectory.verdict
    ? `${trajectory.verdict.verdict} (${trajectory.verdict.bucket}: ${trajectory.verdict.reason})`
    : "no verdict yet";
  lines.push(`session ${trajectory.session} (${trajectory.task}#${trajectory.repeat}): ${verdict}`);
  if (trajectory.stop) {
    lines.push(
      `stopped: ${trajectory.stop.reason}${
        trajectory.stop.detail ? ` (${trajectory.stop.detail})` : ""
      }`,
    );
  }
  lines.push(...whereItRan(trajectory));
  if (trajectory.resumed) lines.push("resumed after an interruption");
  if (trajectory.replay) {
    const { clockStart, masks } = trajectory.replay;
    lines.push(
      `clock: ${
        clockStart === null ? "the container's own" : `set to ${clockStart} (libfaketime)`
      }; a replay masks ${masks.length === 0 ? "nothing" : masks.join(", ")}`,
    );
  }
  if (trajectory.instruction !== null) {
    lines.push("", "task:", indent(trajectory.instruction.trimEnd(), "  "));
  }
  for (const step of trajectory.steps) {
    lines.push("");
    if (step.compaction) {
      lines.push(
        `  [context compacted: ${step.compaction.removedMessages} messages removed (${step.compaction.strategy})]`,
      );
    }
    const cost = step.cost_usd === null ? "" : `, $${formatUsd(usd(step.cost_usd), 6)}`;
    lines.push(
      `step ${step.step} (${
        totalInput(step.usage)
      } in, ${step.usage.output} out${cost}): ${step.content}`,
    );
    for (const call of step.calls) {
      const decision = call.by_agent
        ? "run by the agent"
        : call.decision
        ? call.decision.allowed ? "allowed" : `DENIED: ${call.decision.reason}`
        : "not run";
      lines.push(`  → ${call.tool} ${call.arguments}  [${decision}]`);
      if (call.command !== undefined) lines.push(indent(`$ ${call.command}`, "      "));
      if (call.result) {
        const exit = call.result.exit_code;
        const marks = [
          call.result.is_error ? "error" : "",
          exit !== undefined && exit !== 0 ? `exit code ${exit}` : "",
          call.result.cached ? "cached" : "",
          call.result.outcome_unknown ? "outcome unknown" : "",
        ]
          .filter(Boolean);
        lines.push(
          indent(preview(call.result.content), "      ") +
            (marks.length > 0 ? `\n      (${marks.join(", ")})` : ""),
        );
      }
    }
  }
  if (trajectory.agentRun) lines.push("", ...agentRunLines(trajectory.agentRun));
  if (trajectory.changes.length > 0) {
    lines.push("", "changes to the workspace:");
    for (const change of trajectory.changes) {
      lines.push(
        `  ${change.change} ${change.path}${
          change.aspects ? ` (${change.aspects.join(", ")})` : ""
        }`,
      );
      if (change.diff) lines.push(indent(change.diff, "    "));
    }
  }
  if (trajectory.grading) lines.push("", "grading:", ...gradingLines(trajectory.grading));
  return lines.join("\n") + "\n";
}

/** The most lines of a grading script's output `show` prints: its end, where the failures are. */
const OUTPUT_LINES = 20;

// An installed agent's command, how it ended, and the end of what it printed.
function agentRunLines(run: NonNullable<Trajectory["agentRun"]>): string[] {
  const ended = run.timed_out ? "killed at the task's deadline" : `exit code ${run.exit_code}`;
  const lines = [`agent command: ${run.command} (${ended})`];
  for (const [name, text] of [["stdout", run.stdout], ["stderr", run.stderr]]) {
    if (text.trim() === "") continue;
    lines.push(`  ${name}:`, ...tail(text, "    "));
  }
  return lines;
}

// The last OUTPUT_LINES lines of `text`, indented, after a line counting the ones left out.
function tail(text: string, prefix: string): string[] {
  const all = text.trimEnd().split("\n");
  const cut = Math.max(0, all.length - OUTPUT_LINES);
  return [
    ...(cut > 0 ? [`${prefix}... (${cut} earlier lines)`] : []),
    indent(all.slice(cut).join("\n"), prefix),
  ];
}

// What grading saw: each check and requirement, the success script's run with the end of its
// output, and the canary's (its output only when it passed, which it must not).
function gradingLines(grading: TrajectoryGrading): string[] {
  const lines: string[] = [];
  for (
    const [label, checks] of [["check", grading.checks], ["requirement", grading.requirements]]
  ) {
    for (const check of checks as ReportedCheck[]) {
      lines.push(`  ${check.passed ? "held" : "FAILED"}  ${label} ${check.kind}: ${check.detail}`);
    }
  }
  const script = (label: string, run: ReportedScript | null, showOutput: boolean) => {
    if (run === null) return;
    const tests = run.tests
      ? `; tests: ${run.tests.ran} ran, ${run.tests.passed} passed, ${run.tests.failed} failed` +
        (run.tests.errors > 0 ? `, ${run.tests.errors} errors` : "")
      : "";
    const ended = run.timed_out ? "killed at its deadline" : `exit code ${run.exit_code}`;
    lines.push(`  ${label} ${run.script}: ${ended}${tests}`);
    if (showOutput && run.output.trim() !== "") lines.push(...tail(run.output, "    "));
  };
  script("success script", grading.success, true);
  const canaryPassed = grading.canary?.exit_code === 0 && !grading.canary.timed_out;
  script(
    canaryPassed ? "canary (it must fail, and passed)" : "canary",
    grading.canary,
    canaryPassed,
  );
  if (grading.reward !== undefined) lines.push(`  reward ${grading.reward}`);
  return lines;
}

function preview(text: string): string {
  const lines = text.split("\n");
  return lines.length > 12
    ? [...lines.slice(0, 10), `... (${lines.length - 10} more lines)`].join("\n")
    : text;
}

function indent(text: string, prefix: string): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

// The engine it ran on, and each move from a lost engine (a run given several, `--engine`).
function whereItRan({ engine, moves }: Trajectory): string[] {
  return [
    ...(engine === undefined ? [] : [`engine: ${engine}`]),
    ...(moves ?? []).map(({ from, to, reason }) =>
      `moved from engine ${from} to ${to}, its engine lost: ${reason}`
    ),
  ];
}
