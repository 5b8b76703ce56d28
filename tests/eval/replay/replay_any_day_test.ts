/**
 * Claude Code and Codex CLI replay identically on any day. A probe task has each list the folders
 * the engine made when its container started, the staged files, and print the date; the replay
 * then runs as on a day and as on a year later, without touching the host's clock: the engine's
 * folders dated later and the container's clock moved ahead (`_shifted_sandbox.ts`). Both replays
 * are identical, because those folders carry the staged files' fixed time and the clock of the
 * agent's commands (Codex: the agent's too) starts at the run's start, which the runs put 400 days
 * back, so an unset clock cannot pass for a set one; a changed instruction still diverges, named
 * by its field path. The masks each session was compared under are its own, recorded with it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Docker } from "../../../src/engine/docker.ts";
import { DockerSandbox } from "../../../src/engine/docker_sandbox.ts";
import { replayEval } from "../../../src/library/recorded_runs.ts";
import type { Results } from "../../../src/report/results.ts";
import { EVENT, last } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { dockerEnv, requireDocker } from "../../_docker.ts";
import { requireKits } from "../../_kits.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../../_verdict.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { systemClock } from "../../../src/core/system_clock.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";
import { shiftedSandbox } from "./_shifted_sandbox.ts";

const PROBE = "tests/fixtures/installed/time-probe";

Deno.test("Claude Code and Codex replay identically as on a day and a year later, and diverge on a changed instruction", async (t) => {
  await requireDocker();
  await using scratch = await scratchDir("replay-any-day");
  const home = join(scratch.path, "home");
  await requireKits(home, ["claude-code", "codex"]);
  const task = join(scratch.path, "time-probe");
  await copyTree(join(PROJECT_ROOT, PROBE), task);
  // The runs start 400 days ago by their clock, so an agent whose clock was not set to the run's
  // start would print today's date, and be caught.
  const sandbox = new DockerSandbox(new Docker(dockerEnv()));
  const clock = { ...systemClock, now: () => systemClock.now() - 400 * 86_400_000 };
  const runs: string[] = [];
  for (const agent of ["claude-code", "codex"]) {
    const { run } = await runEval({ paths: [task], agent, seed: 5, home }, { sandbox, clock });
    runs.push(run.id);
  }

  for (const [index, agent] of ["claude-code", "codex"].entries()) {
    const run = runs[index];
    const results = JSON.parse(
      await Deno.readTextFile(join(home, "runs", run, "results.json")),
    ) as Results;
    const [trial] = results.trials;
    assert.deepEqual([trial.verdict, trial.bucket], ["pass", "pass"], `${agent}: ${trial.reason}`);
    await t.step(`${agent} saw fixed folder times and the run's start on its clock`, () => {
      const store = openStore(join(home, "verdict.db"));
      try {
        const events = store.events.read(trial.session);
        const ran = last(events, EVENT.agentCmd)!.payload;
        const started = results.run.created_at;
        assert.equal(ran.clock_start, started);
        const told = JSON.stringify(events.filter((event) => event.kind === EVENT.gatewayCall));
        assert.match(told, /2023-11-14 22:13:20\.0+ \+0000 \.dockerenv/);
        assert.match(told, /2023-11-14 22:13:20\.0+ \+0000 etc/);
        // `date -u '+%Y-%m-%d %H:%M'` printed the run's start, 400 days ago.
        assert.ok(told.includes(started.slice(0, 16).replace("T", " ")), `${agent} saw ${started}`);
        // What its own clock writes into its prompt is masked, by name: Claude Code's runtime
        // keeps the container's clock; Codex's static binary cannot take libfaketime.
        const ownDate = agent === "claude-code" ? "todays-date" : "current-date";
        assert.equal(ran.replay_masks?.includes(ownDate), true, JSON.stringify(ran.replay_masks));
        assert.equal(ran.replay_masks?.includes("os-version"), agent === "claude-code");
      } finally {
        store.close();
      }
    });
    await t.step(`show names ${agent}'s clock and the masks its replay applies`, async () => {
      const shown = await runVerdictInProcess(["show", trial.session, "--home", home]);
      assert.equal(shown.code, 0, shown.stderr);
      const masks = agent === "claude-code"
        ? "claude-code-user-id, os-version, todays-date"
        : "end-user-id, prompt-cache-key, request-metadata, codex-client-metadata, " +
          "input-item-ids, current-date, chunk-id, wall-time";
      assert.match(
        shown.stdout,
        new RegExp(
          `^clock: set to ${results.run.created_at.replace(/\./g, "\\.")} \\(libfaketime\\); ` +
            `a replay masks ${masks}$`,
          "m",
        ),
      );
    });
    for (const days of [1, 365]) {
      await t.step(
        `${agent}'s run replays identically as on a day ${days} days later`,
        async () => {
          const sandbox = shiftedSandbox(new DockerSandbox(new Docker(dockerEnv())), days);
          const [replayed] = await replayEval(home, run, { sandbox });
          assert.equal(replayed.status, "identical", JSON.stringify(replayed));
        },
      );
    }
  }

  await t.step("a changed instruction diverges, named by its field path", async () => {
    await Deno.writeTextFile(join(task, "instruction.md"), "Print today's date.\n");
    const [replayed] = await replayEval(home, runs[0], { sandbox });
    assert.equal(replayed.status, "diverged", JSON.stringify(replayed));
    assert.match(
      replayed.reason ?? "",
      /^request 1 differs from the record at messages\[0\]\.content\[\d+\]\.text: .*Print today's date/,
    );
  });
});
