import assert from "node:assert/strict";
import { join } from "node:path";
import { findAgentTools } from "../../src/gateway/_agent_tools.ts";
import { scriptedAgentModel } from "../../src/gateway/scripted_agent_model.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import type { Message, ModelResponse, ToolSchema } from "../../src/model/model.ts";
import { type Fault, planScriptedTrial } from "../../src/model/scripted_plan.ts";
import { heuristicCounter } from "../../src/model/tokens.ts";
import { loadTask } from "../../src/task/load_task.ts";
import type { Task } from "../../src/task/task.ts";
import { PROJECT_ROOT, scratchDir } from "../_verdict.ts";
import {
  CLAUDE_CODE_TOOLS,
  CODEX_TOOLS,
  DECOY_TOOLS,
  PY_AGENT_TOOLS,
  VERDICT_TOOLS,
} from "./_agent_tool_lists.ts";

const SIGNAL = { signal: new AbortController().signal };

/** Talks to the model as an agent would, every tool answering `ok`, until it answers in text. */
async function converse(
  task: Task,
  tools: ToolSchema[],
  options: { seed?: number; faults?: number; maxTurns?: number } = {},
): Promise<ModelResponse[]> {
  const model = await scriptedAgentModel({
    task,
    rng: new SplitMix64(options.seed ?? 0),
    faults: options.faults ?? 0,
    counter: heuristicCounter,
  });
  const messages: Message[] = [{ role: "user", content: task.instruction }];
  const answers: ModelResponse[] = [];
  while (answers.length < (options.maxTurns ?? 30)) {
    const answer = await model.complete(
      { system: "agent", messages, tools, maxOutputTokens: 4096 },
      SIGNAL,
    );
    answers.push(answer);
    if (answer.toolCalls.length === 0) break;
    messages.push({ role: "assistant", content: answer.content, toolCalls: answer.toolCalls });
    for (const call of answer.toolCalls) {
      messages.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: "ok",
        isError: false,
      });
    }
  }
  return answers;
}

function callsOf(answers: ModelResponse[]) {
  return answers.flatMap((answer) => answer.toolCalls);
}

async function solutionText(task: Task, path: string): Promise<string> {
  return await Deno.readTextFile(join(task.dir, "solution/files", path));
}

async function seedWithFault(task: Task, fault: Fault): Promise<number> {
  for (let seed = 0; seed < 500; seed++) {
    const plan = await planScriptedTrial({ task, rng: new SplitMix64(seed), faults: 1 });
    if (plan.fault === fault) return seed;
  }
  throw new Error(`no seed picks ${fault}`);
}

/** Runs a shell command line with bash in `cwd` (python3 is the one program tests may run). */
async function runBash(line: string, cwd: string): Promise<number> {
  const output = await new Deno.Command("python3", {
    args: [
      "-c",
      "import subprocess, sys; sys.exit(subprocess.run(['bash', '-c', sys.argv[1]]).returncode)",
      line,
    ],
    cwd,
  }).output();
  return output.code;
}

Deno.test("finds the shell and the writer of Claude Code, Codex CLI, a Python agent and Verdict", () => {
  assert.deepEqual(findAgentTools(CLAUDE_CODE_TOOLS), {
    shell: { name: "Bash", property: "command", form: "string" },
    writer: {
      name: "Write",
      pathProperty: "file_path",
      contentProperty: "content",
      absolute: true,
    },
  });
  assert.deepEqual(findAgentTools(CODEX_TOOLS), {
    shell: { name: "shell", property: "command", form: "argv" },
    writer: null,
  });
  assert.deepEqual(findAgentTools(PY_AGENT_TOOLS), {
    shell: { name: "bash", property: "command", form: "string" },
    writer: {
      name: "write_file",
      pathProperty: "path",
      contentProperty: "content",
      absolute: false,
    },
  });
  assert.deepEqual(findAgentTools(VERDICT_TOOLS), {
    shell: { name: "shell", property: "command", form: "string" },
    writer: {
      name: "write_file",
      pathProperty: "path",
      contentProperty: "content",
      absolute: false,
    },
  });
});

Deno.test("a sub-command, a Python script runner and an append tool are neither shell nor writer", () => {
  assert.deepEqual(findAgentTools(DECOY_TOOLS), { shell: null, writer: null });
  assert.deepEqual(findAgentTools([]), { shell: null, writer: null });
});

Deno.test("through Claude Code's tools: Bash to look, Write with absolute paths, a final text answer", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  const answers = await converse(task, CLAUDE_CODE_TOOLS);
  const calls = callsOf(answers);
  assert.deepEqual(calls.map((call) => call.name), [
    "Bash",
    "Bash",
    "Bash",
    "Write",
    "Write",
    "Bash",
  ]);
  assert.deepEqual(JSON.parse(calls[0].arguments), {
    command: "find '.' -maxdepth 3 | LC_ALL=C sort",
  });
  assert.deepEqual(JSON.parse(calls[1].arguments), { command: "cat -- 'textkit/normalize.py'" });
  assert.deepEqual(JSON.parse(calls[3].arguments), {
    file_path: "/workspace/textkit/normalize.py",
    content: await solutionText(task, "textkit/normalize.py"),
  });
  const last = answers.at(-1)!;
  assert.deepEqual([last.toolCalls, last.finish], [[], "stop"]);
  assert.match(last.content, /change is in place/);
});

Deno.test("through Codex CLI's argv shell: bash -lc lines, files written by quoted heredoc that bash runs exactly", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  const calls = callsOf(await converse(task, CODEX_TOOLS));
  assert.ok(calls.every((call) => call.name === "shell"));
  const argvs = calls.map((call) => JSON.parse(call.arguments).command as string[]);
  assert.ok(argvs.every((argv) => argv[0] === "bash" && argv[1] === "-lc" && argv.length === 3));
  const writes = argvs.map((argv) => argv[2]).filter((line) => line.includes("<<'VERDICT_EOF'"));
  assert.equal(writes.length, 2);
  await using scratch = await scratchDir("heredoc");
  for (const line of writes) assert.equal(await runBash(line, scratch.path), 0, line);
  for (const path of ["textkit/normalize.py", "textkit/slug.py"]) {
    assert.equal(
      await Deno.readTextFile(join(scratch.path, path)),
      await solutionText(task, path),
    );
  }
});

Deno.test("in a busybox image an argv shell gets sh -c, as busybox has no bash", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/shell-count-errors"));
  const calls = callsOf(await converse(task, CODEX_TOOLS));
  assert.ok(calls.length > 0);
  for (const call of calls) {
    assert.deepEqual(JSON.parse(call.arguments).command.slice(0, 2), ["sh", "-c"]);
  }
});

Deno.test("a heredoc write keeps quotes, a line like the delimiter and a missing final newline", async () => {
  // The same writer the model uses, reached through a task whose solution is replaced.
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  await using scratch = await scratchDir("odd-content");
  const fake: Task = { ...task, dir: scratch.path };
  const contents = {
    "a.txt": 'it\'s "quoted" $HOME `x`\nVERDICT_EOF\nend\n',
    "deep/b.txt": "no final newline ' here",
    "c.txt": "",
  };
  await Deno.mkdir(join(scratch.path, "workspace"));
  for (const [path, content] of Object.entries(contents)) {
    await Deno.mkdir(join(scratch.path, "solution/files", path, ".."), { recursive: true });
    await Deno.writeTextFile(join(scratch.path, "solution/files", path), content);
  }
  const calls = callsOf(await converse(fake, CODEX_TOOLS));
  const work = join(scratch.path, "work");
  await Deno.mkdir(work);
  for (const call of calls) {
    const line = JSON.parse(call.arguments).command[2] as string;
    if (line.includes(" > ")) assert.equal(await runBash(line, work), 0, line);
  }
  for (const [path, content] of Object.entries(contents)) {
    assert.equal(await Deno.readTextFile(join(work, path)), content, path);
  }
});

Deno.test("a request without shell or writer (a side request) gets text and does not advance the plan", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  const model = await scriptedAgentModel({
    task,
    rng: new SplitMix64(0),
    faults: 0,
    counter: heuristicCounter,
  });
  const messages: Message[] = [{ role: "user", content: "Give this chat a title." }];
  const side = await model.complete(
    { system: "", messages, tools: DECOY_TOOLS, maxOutputTokens: 50 },
    SIGNAL,
  );
  assert.deepEqual([side.toolCalls, side.finish], [[], "stop"]);
  assert.match(side.content, /no shell or file-writing tool .*python/);
  const first = await model.complete(
    { system: "", messages, tools: PY_AGENT_TOOLS, maxOutputTokens: 50 },
    SIGNAL,
  );
  assert.match(JSON.parse(first.toolCalls[0].arguments).command, /^find /);
});

Deno.test("docs reads and policy probes are left out; usage counts the request and the calls", async () => {
  const docs = await loadTask(join(PROJECT_ROOT, "tasks/docs-service-config"));
  const docCalls = callsOf(await converse(docs, PY_AGENT_TOOLS));
  assert.ok(docCalls.every((call) => !call.arguments.includes("docs/")), "no docs page is read");
  const policy = await loadTask(join(PROJECT_ROOT, "tasks/policy-no-installs"));
  const answers = await converse(policy, PY_AGENT_TOOLS);
  assert.ok(callsOf(answers).every((call) => !/pip install|curl|wget/.test(call.arguments)));
  assert.equal(answers.at(-1)!.toolCalls.length, 0);
  for (const answer of answers) {
    assert.ok(answer.usage.input > 0 && answer.usage.output > 0 && answer.usage.cachedInput === 0);
  }
});

Deno.test("faults: malformed arguments, a denied command run quietly, an early stop, a runaway loop", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  const malformed = callsOf(
    await converse(task, CLAUDE_CODE_TOOLS, {
      seed: await seedWithFault(task, "malformed_args"),
      faults: 1,
    }),
  );
  const broken = malformed.find((call) => call.name === "Write")!;
  assert.equal(broken.arguments, '{"file_path":"/workspace/textkit/normalize.py","content":"');
  assert.throws(() => JSON.parse(broken.arguments));

  const denied = callsOf(
    await converse(task, PY_AGENT_TOOLS, {
      seed: await seedWithFault(task, "denied_command"),
      faults: 1,
    }),
  );
  assert.deepEqual(denied.slice(1).map((call) => JSON.parse(call.arguments).command), [
    'pip install --quiet python-dateutil >/dev/null 2>&1; echo "exit status $?"',
    'pip install --quiet python-dateutil >/dev/null 2>&1; echo "exit status $?"',
    'pip install --quiet python-dateutil >/dev/null 2>&1; echo "exit status $?"',
  ]);

  const early = await converse(task, PY_AGENT_TOOLS, {
    seed: await seedWithFault(task, "early_stop"),
    faults: 1,
  });
  assert.ok(callsOf(early).every((call) => call.name === "bash"), "nothing is written");
  assert.equal(early.at(-1)!.content, "I fixed the problem and all tests pass.");

  const runaway = await converse(task, PY_AGENT_TOOLS, {
    seed: await seedWithFault(task, "runaway_loop"),
    faults: 1,
    maxTurns: 12,
  });
  assert.equal(runaway.length, 12, "it never answers in text");
  assert.equal(new Set(runaway.slice(1).map((answer) => answer.toolCalls[0].arguments)).size, 1);
});

Deno.test("the same seed says the same calls; the spec names the faults", async () => {
  const task = await loadTask(join(PROJECT_ROOT, "tasks/add-json-output"));
  const once = await converse(task, CODEX_TOOLS, { seed: 7, faults: 0.5 });
  const again = await converse(task, CODEX_TOOLS, { seed: 7, faults: 0.5 });
  assert.deepEqual(again, once);
  const model = await scriptedAgentModel({
    task,
    rng: new SplitMix64(7),
    faults: 0.5,
    counter: heuristicCounter,
  });
  assert.equal(model.spec, "scripted:faults=0.5");
});
