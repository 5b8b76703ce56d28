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
 * trials' time goes (set-up, the agent's exec, seal, grading, the rest), from the events' stamps.
 * Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import type { Results } from "../src/report/results.ts";
import { Docker } from "../src/engine/docker.ts";
import { EVENT, last } from "../src/store/event_catalogue.ts";
import type { StoredEvent } from "../src/store/event_log.ts";
import { openStore } from "../src/store/store.ts";
import { requireKits } from "../tests/_kits.ts";
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

const floor: number[] = [];
async function measureFloor(): Promise<void> {
  for (let round = 0; round < FLOOR_ROUNDS; round++) floor.push(await bareRun());
}

/** One trial: its wall time, the duration its agent reported, and the span of its exec. */
interface AgentTrial {
  verdict: string;
  wallMs: number;
  reportedMs: number | null;
  exec: { ms: number; from: string } | null;
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
for (const agent of [...INSTALLED, "loop"]) {
  await measureFloor();
  measured.set(agent, await evalTrials(agent));
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
