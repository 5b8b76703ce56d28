/**
 * The scripted model behind the gateway: the same seeded plan as Verdict's loop
 * ({@linkcode planScriptedTrial}: fault knobs included), said through an installed agent's own
 * tools. Each request's `tools` are read for the agent's shell and file-writing tools
 * (`_agent_tools.ts` documents how); the plan's calls become calls of those tools:
 *
 * - listing the workspace: `find . -maxdepth N | LC_ALL=C sort` through the shell;
 * - reading a file: `cat -- 'path'` through the shell;
 * - writing a file: the writer (the path absolute under the task's workdir where its schema asks
 *   for one), or else the shell with a quoted heredoc (`printf '%s'` for content that does not
 *   end in a newline);
 * - a shell command: the shell, as a line, or as `["bash", "-lc", line]` for an argv shell
 *   (`["sh", "-c", line]` in a busybox image, which has no bash); a tempting command (the
 *   `denied_command` fault) runs with its output thrown away, so that a failing install prints
 *   the same thing every time;
 * - finishing: a final text answer with no tool call, the summary as its text.
 *
 * Reading docs is left out (an installed agent has no `read_docs`), and so is probing for a
 * policy denial: nothing of Verdict's stands between an installed agent and its shell to deny
 * anything. A request without a usable tool (a side request such as a title, made with no tools)
 * gets a short text answer and does not advance the plan. The agent runs in the task's workdir,
 * so shell paths are relative.
 *
 * @module
 */
import { posix } from "node:path";
import type { Model, ModelRequest, ModelResponse, ToolCall } from "../model/model.ts";
import type { ScriptedModelOptions } from "../model/scripted.ts";
import {
  cutOffJson,
  type Fault,
  planScriptedTrial,
  type ScriptedCall,
  scriptedUsage,
  TEMPTING_COMMANDS,
} from "../model/scripted_plan.ts";
import { type AgentTools, findAgentTools } from "./_agent_tools.ts";

/** A planned call as the agent's tool receives it, or the end of the conversation. */
type Rendered = { name: string; args: Record<string, unknown> } | "final" | null;

/**
 * Makes the scripted model that answers an installed agent's calls in one trial.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTask } from "../task/load_task.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { heuristicCounter } from "../model/tokens.ts";
 * import { scriptedAgentModel } from "./scripted_agent_model.ts";
 * const model = await scriptedAgentModel({
 *   task: await loadTask("tasks/fix-slugify"), rng: new SplitMix64(0), faults: 0, counter: heuristicCounter,
 * });
 * const answer = await model.complete({
 *   system: "", messages: [{ role: "user", content: "Fix it." }], maxOutputTokens: 1000,
 *   tools: [{ name: "bash", description: "Run a command.",
 *     parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }],
 * }, { signal: new AbortController().signal });
 * assert.equal(answer.toolCalls[0].name, "bash");
 * ```
 */
export async function scriptedAgentModel(
  options: ScriptedModelOptions,
): Promise<Model & { fault: Fault | null }> {
  const { task, counter } = options;
  const { fault, steps: planned } = await planScriptedTrial(options);
  const steps = planned.filter((step) => !step.untilDenied);
  const busybox = task.manifest.image.includes("busybox");
  const workdir = task.manifest.workdir;
  let next = 0;
  let callNumber = 0;
  return {
    spec: options.faults > 0 ? `scripted:faults=${options.faults}` : "scripted",
    remote: false,
    fault,
    complete(request: ModelRequest): Promise<ModelResponse> {
      const tools = findAgentTools(request.tools);
      const answer = (say: string, toolCalls: ToolCall[]): Promise<ModelResponse> =>
        Promise.resolve({
          content: say,
          toolCalls,
          finish: toolCalls.length > 0 ? "tool_calls" : "stop",
          usage: scriptedUsage(counter, request, say, toolCalls),
        });
      if (tools.shell === null && tools.writer === null) {
        const offered = request.tools.map((tool) => tool.name).join(", ") || "none";
        return answer(
          `I have no shell or file-writing tool to work with (tools offered: ${offered}).`,
          [],
        );
      }
      // Steps run in order, the last one repeating; a step none of whose calls the agent's tools
      // can say is passed over.
      for (;;) {
        const step = steps[Math.min(next, steps.length - 1)];
        next++;
        const rendered = step.calls.map((call) => ({
          call,
          said: render(call, tools, { busybox, workdir }),
        }));
        if (rendered.some(({ said }) => said === "final")) return answer(step.say, []);
        const said = rendered.flatMap(({ call, said }) =>
          said === null || said === "final" ? [] : [{ ...said, malformed: call.malformed }]
        );
        if (said.length === 0 && next < steps.length) continue;
        return answer(
          step.say,
          said.map((call) => ({
            id: `call_${++callNumber}`,
            name: call.name,
            arguments: call.malformed
              ? cutOffJson(JSON.stringify(call.args))
              : JSON.stringify(call.args),
          })),
        );
      }
    },
  };
}

function render(
  call: ScriptedCall,
  tools: AgentTools,
  where: { busybox: boolean; workdir: string },
): Rendered {
  const shell = (line: string): Rendered => {
    if (tools.shell === null) return null;
    const command = tools.shell.form === "string"
      ? line
      : (where.busybox ? ["sh", "-c", line] : ["bash", "-lc", line]);
    return { name: tools.shell.name, args: { [tools.shell.property]: command } };
  };
  const args = call.args as Record<string, string | number | undefined>;
  switch (call.name) {
    case "list_dir":
      return shell(
        `find ${quote(String(args.path ?? "."))} -maxdepth ${args.depth ?? 3} | LC_ALL=C sort`,
      );
    case "read_file":
      return shell(`cat -- ${quote(String(args.path))}`);
    case "write_file": {
      const path = String(args.path);
      const content = String(args.content);
      if (tools.writer === null) return shell(writeCommand(path, content));
      const { name, pathProperty, contentProperty, absolute } = tools.writer;
      return {
        name,
        args: {
          [pathProperty]: absolute ? posix.join(where.workdir, path) : path,
          [contentProperty]: content,
        },
      };
    }
    case "shell": {
      const command = String(args.command);
      return shell(
        TEMPTING_COMMANDS.includes(command)
          ? `${command} >/dev/null 2>&1; echo "exit status $?"`
          : command,
      );
    }
    case "finish":
      return "final";
    default:
      return null;
  }
}

/** A shell command that writes `content` to `path` exactly, making its folder first. */
function writeCommand(path: string, content: string): string {
  const folder = posix.dirname(path);
  const makeFolder = folder === "." ? "" : `mkdir -p -- ${quote(folder)} && `;
  if (!content.endsWith("\n")) {
    return `${makeFolder}printf '%s' ${quote(content)} > ${quote(path)}`;
  }
  const lines = new Set(content.split("\n"));
  let delimiter = "VERDICT_EOF";
  for (let n = 1; lines.has(delimiter); n++) delimiter = `VERDICT_EOF_${n}`;
  return `${makeFolder}cat > ${quote(path)} <<'${delimiter}'\n${content}${delimiter}`;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
