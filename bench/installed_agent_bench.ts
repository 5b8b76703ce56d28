/**
 * The harness overhead of an installed agent's trial against the floor of Docker itself, measured
 * in the same run: for Claude Code and Codex, `verdict eval` (the real CLI process, scripted
 * model, one trial at a time) runs two small tasks a few times; each trial's overhead is its wall
 * time (`duration_ms` in `results.json`) less the agent's own duration, and its median is set
 * against the median wall time of a bare `docker run --rm --network none IMAGE true`.
 *
 * The agent's own duration is what its transcript reports (`agent.transcript` `duration_ms`,
 * which Claude Code gives), else the span of its exec (Codex reports none): from the last event
 * the trial recorded before the agent started (gateway exchanges, recorded while it runs, are
 * skipped) to its `agent.cmd` event, by their `at` stamps (whole milliseconds). The loop agent's
 * median trial wall time over the same tasks is printed for context, and for each agent where its
 * trials' time goes (set-up, the agent's exec, seal, grading, the rest), from the events' stamps,
 * and how long each took from its workspace staged to its first model call. Claude Code's own
 * start, without a harness, is measured beside it: in a container of the image with its kit
 * mounted, from the program's start to its first request to a loopback server in the same
 * container. Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import type { Results } from "../src/report/results.ts";
import { Docker } from "../src/engine/docker.ts";
import { EVENT, last } from "../src/store/event_catalogue.ts";
import type { StoredEvent } from "../src/store/event_log.ts";
import { openStore } from "../src/store/store.ts";
import { KITS_HOME, requireKits } from "../tests/_kits.ts";
import { findKit } from "../src/kit/kit_store.ts";
import { kitRecipe } from "../src/kit/kit_catalogue.ts";
import { runVerdict } from "../tests/_verdict.ts";
import { median, scratchFolder } from "./_measure.ts";

const REPEAT = 3;
const TASKS = ["tasks/fix-slugify", "tasks/fix-csv-quoting"];
const INSTALLED = ["claude-code", "codex"];
const FLOOR_ROUNDS = 3; // before each eval and once more at the end, pooled
const IMAGE = "verdict/python:3.11";
const GATEWAY_KINDS: ReadonlySet<string> = new Set([EVENT.gatewayCall, EVENT.gatewayAnswer]);

const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
await using home = await scratchFolder("bench-installed");
await requireKits(home.path, INSTALLED);

async function bareRun(): Promise<number> {
  const start = performance.now();
  const result = await docker.run([
    "run",
    "--rm",
    "--pull=never",
    "--network",
    "none",
    IMAGE,
    "true",
  ]);
  if (result.code !== 0) throw new Error(result.stderr);
  return performance.now() - start;
}

// Claude Code's own start, with no harness: in a container of the image, its kit mounted, against
// a loopback server in the same container that answers 500 and prints when the request came; the
// span from the program's start to that request, each of `OWN_START_ROUNDS`.
const OWN_START_ROUNDS = 5;
const LOOPBACK_SERVER = `import http.server, time
class Answer(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        print("request", time.time_ns(), flush=True)
        self.send_response(500)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", 8080), Answer).serve_forever()`;

async function claudeCodeOwnStart(): Promise<number[]> {
  const kit = await findKit(KITS_HOME, "claude-code", kitRecipe("claude-code")!.defaultVersion);
  if (kit === null) throw new Error("the claude-code kit is missing: run 'deno task kits'");
  const run = `echo "starts $(date +%s%N)"; echo hi | /kit/${kit.binary} -p ` +
    "--dangerously-skip-permissions --output-format stream-json --verbose >/dev/null 2>&1";
  const result = await docker.run([
    "run",
    "--rm",
    "--pull=never",
    "--network=none",
    "--user=1000:1000",
    `--volume=${kit.folder}:/kit:ro`,
    ...["HOME=/tmp", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_MAX_RETRIES=0"]
      .flatMap((pair) => ["--env", pair]),
    ...["ANTHROPIC_BASE_URL=http://127.0.0.1:8080", "ANTHROPIC_API_KEY=sk-bench"]
      .flatMap((pair) => ["--env", pair]),
    IMAGE,
    "sh",
    "-c",
    `python3 -c '${LOOPBACK_SERVER}' & sleep 1; for round in $(seq ${OWN_START_ROUNDS}); ` +
    `do ${run}; done; kill $!`,
  ]);
  const stdout = new TextDecoder().decode(result.stdout);
  const stamps = [...stdout.matchAll(/^(starts|request) (\d+)$/gm)];
  const spans: number[] = [];
  for (let at = 0; at + 1 < stamps.length; at++) {
    if (stamps[at][1] === "starts" && stamps[at + 1][1] === "request") {
      spans.push(Number(BigInt(stamps[at + 1][2]) - BigInt(stamps[at][2])) / 1e6);
    }
  }
  if (spans.length !== OWN_START_ROUNDS) {
    throw new Error(`Claude Code's own start: ${spans.length} rounds measured: ${stdout}`);
  }
  return spans;
}

const floor: number[] = [];
async function measureFloor(): Promise<void> {
  for (let round = 0; round < FLOOR_ROUNDS; round++) floor.push(await bareRun());
}

/**
 * One trial: its wall time, the duration its agent reported, the span of its exec, and its start
 * (its container staged to its first model call: the exec's start and the agent's own).
 */
interface AgentTrial {
  verdict: string;
  wallMs: number;
  reportedMs: number | null;
  exec: { ms: number; from: string } | null;
  startMs: number | null;
  phases: Phases;
}

/**
 * Where a trial's wall time went, from its events' `at` stamps: set-up (started to staged: the
 * containers, the gateway), the agent (staged to `agent.stopped`: an installed agent's exec), the seal (`agent.stopped`
 * to `end_state.sealed`), grading (sealed to `grading.finished`), and what is left (recording,
 * removal, the gaps between).
 */
type Phases = Record<"setup" | "agent" | "seal" | "grading" | "rest", number>;

function phasesOf(events: StoredEvent[], wallMs: number): Phases {
  const at = (kind: string) => events.findLast((stored) => stored.kind === kind)?.at ?? 0;
  const setup = at(EVENT.workspaceStaged) - at(EVENT.trialStarted);
  const agent = at(EVENT.agentStopped) - at(EVENT.workspaceStaged);
  const seal = at(EVENT.endStateSealed) - at(EVENT.agentStopped);
  const grading = at(EVENT.gradingFinished) - at(EVENT.endStateSealed);
  return { setup, agent, seal, grading, rest: wallMs - setup - agent - seal - grading };
}

/** Runs `verdict eval` for `agent` and reads its trials from `results.json` and the store. */
async function evalTrials(agent: string): Promise<AgentTrial[]> {
  const runsFolder = join(home.path, "runs");
  const before = new Set(await folderNames(runsFolder));
  const output = await runVerdict([
    "eval",
    ...TASKS,
    "--repeat",
    String(REPEAT),
    "--agent",
    agent,
    "--concurrency",
    "1",
    "--home",
    home.path,
  ]);
  const created = (await folderNames(runsFolder)).filter((name) => !before.has(name));
  if (created.length !== 1) {
    throw new Error(`verdict eval --agent ${agent} exited ${output.code}: ${output.stderr}`);
  }
  const results: Results = JSON.parse(
    await Deno.readTextFile(join(runsFolder, created[0], "results.json")),
  );
  if (results.trials.length !== TASKS.length * REPEAT) {
    throw new Error(`verdict eval --agent ${agent} finished ${results.trials.length} trials`);
  }
  const store = openStore(join(home.path, "verdict.db"));
  try {
    return results.trials.map((trial) => {
      const events = store.events.read(trial.session);
      return {
        verdict: trial.verdict,
        wallMs: trial.duration_ms,
        ...ownDuration(events),
        startMs: startOf(events),
        phases: phasesOf(events, trial.duration_ms),
      };
    });
  } finally {
    store.close();
  }
}

/** The agent's own duration in a session's log (see the module's documentation). */
function ownDuration(events: StoredEvent[]): Pick<AgentTrial, "reportedMs" | "exec"> {
  const reportedMs = last(events, EVENT.agentTranscript)?.payload.duration_ms ?? null;
  const cmd = events.findLastIndex((stored) => stored.kind === EVENT.agentCmd);
  const start = events.findLastIndex((stored, index) =>
    index < cmd && !GATEWAY_KINDS.has(stored.kind)
  );
  const [from, to] = [events[start]?.at ?? null, events[cmd]?.at ?? null];
  const exec = from === null || to === null ? null : { ms: to - from, from: events[start].kind };
  return { reportedMs, exec };
}

/** From the workspace staged to the agent's first model call, by the events' stamps. */
function startOf(events: StoredEvent[]): number | null {
  const staged = events.find((stored) => stored.kind === EVENT.workspaceStaged);
  const call = events.find((stored) => stored.kind === EVENT.gatewayCall);
  return staged?.at != null && call?.at != null ? call.at - staged.at : null;
}

/** What the overhead is measured against: the reported duration, else the exec's span. */
function agentMs(trial: AgentTrial): number | null {
  return trial.reportedMs ?? trial.exec?.ms ?? null;
}

async function folderNames(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) if (entry.isDirectory) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

function passes(trials: AgentTrial[]): string {
  return `${trials.filter((trial) => trial.verdict === "pass").length}/${trials.length} passed`;
}

await bareRun(); // warm the engine's caches
const measured = new Map<string, AgentTrial[]>();
const ownStart: number[] = [];
for (const agent of [...INSTALLED, "loop"]) {
  await measureFloor();
  measured.set(agent, await evalTrials(agent));
  ownStart.push(...await claudeCodeOwnStart());
}
await measureFloor();

const floorMs = median(floor);
console.log(
  `bare docker run --rm --network none ${IMAGE} true: median ${
    floorMs.toFixed(0)
  } ms over ${floor.length}`,
);
for (const agent of INSTALLED) {
  const trials = measured.get(agent)!;
  const timed = trials.filter((trial) => agentMs(trial) !== null);
  if (timed.length === 0) throw new Error(`no ${agent} trial recorded its agent's duration`);
  const overhead = median(timed.map((trial) => trial.wallMs - agentMs(trial)!));
  const reported = timed.every((trial) => trial.reportedMs !== null);
  const spans = trials.flatMap((trial) => trial.exec === null ? [] : [trial.exec]);
  const spanText = `its exec's span (${[...new Set(spans.map((span) => span.from))].join(", ")} ` +
    `to ${EVENT.agentCmd}) ${median(spans.map((span) => span.ms)).toFixed(0)} ms`;
  console.log(
    `${agent}: ${trials.length} trials (${passes(trials)}), median trial ${
      median(trials.map((trial) => trial.wallMs)).toFixed(0)
    } ms; agent ${median(timed.map((trial) => agentMs(trial)!)).toFixed(0)} ms ${
      reported ? `as it reported (${spanText})` : `from ${spanText}, as it reports none`
    }; overhead ${overhead.toFixed(0)} ms over ${timed.length} = ${
      (overhead / floorMs).toFixed(2)
    } x bare docker run`,
  );
}
// What any harness pays under this definition of overhead: the agent's start, before the duration
// it reports begins (Claude Code's starts at about its first call), and the task's tests in a
// fresh grader. Codex reports no duration, so its start is inside what it is measured against.
const own = median(ownStart);
console.log(
  `claude-code's own start, alone in a container (its start to its first request, against a ` +
    `loopback server): median ${own.toFixed(0)} ms over ${ownStart.length} = ${
      (own / floorMs).toFixed(2)
    } x bare docker run`,
);
for (const agent of INSTALLED) {
  const trials = measured.get(agent)!;
  const start = median(trials.flatMap((trial) => trial.startMs ?? []));
  const grading = median(trials.map((trial) => trial.phases.grading));
  console.log(
    `${agent}: staged to its first model call ${start.toFixed(0)} ms (its exec's start and its ` +
      `own); with the grading phase (${grading.toFixed(0)} ms) ${(start + grading).toFixed(0)} ms` +
      ` = ${((start + grading) / floorMs).toFixed(2)} x bare docker run`,
  );
}
for (const agent of [...INSTALLED, "loop"]) {
  const trials = measured.get(agent)!;
  const phase = (name: keyof Phases) =>
    `${name} ${median(trials.map((trial) => trial.phases[name])).toFixed(0)}`;
  console.log(
    `${agent}, where a trial's time goes (median ms): ${
      (["setup", "agent", "seal", "grading", "rest"] as const).map(phase).join(", ")
    }`,
  );
}
const loop = measured.get("loop")!;
console.log(
  `loop (for context): ${loop.length} trials (${passes(loop)}), median trial ${
    median(loop.map((trial) => trial.wallMs)).toFixed(0)
  } ms; ${TASKS.length} tasks x ${REPEAT}, --model scripted, one trial at a time`,
);
