import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { openStore } from "../../../src/store/store.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir, verdictCommand } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

// The cheapest task that shows a crash's cost: a busybox task whose tool call delivers a tick,
// which must happen exactly once, and which passes only when its run was really resumed.
const COUNTER = "tasks/recovery/recovery-counter";
const POINTS = ["before-model@3", "after-response@3", "mid-tool@3", "after-result@3", "grading"];

/** Runs eval with the crash knob, sends SIGKILL the moment the knob's point is reached, returns the run id. */
async function killAt(point: string, home: string, tasks: string[]): Promise<string> {
  const child = verdictCommand([
    "eval",
    ...tasks,
    "--model",
    `scripted:crash=${point}`,
    "--concurrency",
    String(tasks.length),
    "--home",
    home,
  ]).spawn();
  const decoder = new TextDecoder();
  let stderr = "";
  for await (const chunk of child.stderr) {
    stderr += decoder.decode(chunk, { stream: true });
    if (stderr.includes("crash knob: the process stops at")) break;
  }
  child.kill("SIGKILL");
  const status = await child.status;
  const stdout = decoder.decode((await new Response(child.stdout).arrayBuffer()) as ArrayBuffer);
  assert.equal(status.signal, "SIGKILL", `${point}: ${stderr}`);
  return /^run (\w+)/.exec(stdout)![1];
}

Deno.test("SIGKILL at each point of a step, then resume: the trial gets the uninterrupted verdict, its delivery happens exactly once; resume refuses another model and has nothing to do once finished", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("crash");
  for (const point of POINTS) {
    const home = join(scratch.path, point.replace("@", "-"));
    const run = await killAt(point, home, [COUNTER]);
    if (point === POINTS[0]) {
      const refused = await runVerdict([
        "resume",
        run,
        "--model",
        "scripted:faults=0.5",
        "--home",
        home,
      ]);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        new RegExp(
          `cannot resume run \\w+: the model is scripted:faults=0\\.5, the run used scripted:crash=${point}`,
        ),
      );
    }
    const resumed = await runVerdict(["resume", run, "--json", "--home", home]);
    assert.equal(resumed.code, 0, `${point}: ${resumed.stderr}`);
    const results = JSON.parse(resumed.stdout) as Results;
    assert.equal(results.trials.length, 1, point);
    // Uninterrupted, the scripted model passes the task; the task passes only when resumed.
    const [counter] = results.trials;
    assert.equal(
      counter.verdict,
      "pass",
      `${point}: exactly one delivery and resumed: ${counter.reason}`,
    );
    const verify = await runVerdictInProcess(["verify", run, "--home", home]);
    assert.equal(verify.code, 0, `${point}: ${verify.stdout}`);
    assert.deepEqual(
      await containersLabelled(docker, `verdict.run=${run}`),
      [],
      `${point}: containers left behind`,
    );
    // The delivery is step 3's tool call: stopped between its intent and its result, it must end
    // in an outcome-unknown notice, never a second delivery; stopped anywhere else, it runs once.
    const interrupted = point === "mid-tool@3";
    assert.deepEqual(
      deliveryOf(home, counter.session),
      { intents: 1, interrupted, unknown: interrupted ? 1 : 0 },
      point,
    );
    if (point === POINTS.at(-1)) {
      const again = await runVerdict(["resume", run, "--home", home]);
      assert.equal(again.code, 0);
      assert.match(again.stdout, /0 trials \(1 task × 1\)/, "a finished run has nothing to do");
    }
  }
});

/**
 * The counter's delivery in a resumed session: how often it was asked for, whether the crash fell
 * between its intent and its result, and how many outcome-unknown answers it got.
 */
function deliveryOf(
  home: string,
  session: string,
): { intents: number; interrupted: boolean; unknown: number } {
  const store = openStore(join(home, "verdict.db"));
  const events = store.events.read(session);
  store.close();
  const intents = events.filter((event) =>
    event.kind === "tool.intent" &&
    String((event.payload.arguments as { command?: string } | undefined)?.command)
      .includes("deliver.sh")
  );
  const key = intents[0]?.payload.idempotency_key;
  const resumedAt = events.findIndex((event) => event.kind === "trial.resumed");
  const answers = events.filter((event) =>
    event.kind === "tool.result" && event.payload.idempotency_key === key
  );
  return {
    intents: intents.length,
    interrupted: resumedAt >= 0 && !events.slice(0, resumedAt).includes(answers[0]) &&
      events.indexOf(intents[0]) < resumedAt,
    unknown: answers.filter((event) => event.payload.outcome_unknown === true).length,
  };
}

Deno.test("the trials of a run whose containers are gone resume in new ones restored from their latest snapshots", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("crash");
  // Bundled tasks only: with its container gone, a delivery in flight is lost with it, and the
  // counter task then, rightly, reports an unknown outcome rather than a second delivery.
  const run = await killAt("after-result@3", scratch.path, [
    "tasks/shell-count-errors",
    "tasks/shell-rotate-logs",
  ]);
  for (const id of await containersLabelled(docker, `verdict.run=${run}`)) {
    await docker.run(["rm", "--force", id]);
  }
  const resumed = await runVerdict(["resume", run, "--json", "--home", scratch.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const results = JSON.parse(resumed.stdout) as Results;
  assert.equal(results.trials.length, 2);
  assert.ok(
    results.trials.every((trial) => trial.verdict === "pass"),
    results.trials.map((trial) => trial.reason).join("; "),
  );
  const store = openStore(join(scratch.path, "verdict.db"));
  const markers = results.trials.flatMap((trial) =>
    store.events.read(trial.session).filter((event) => event.kind === "trial.resumed")
  );
  store.close();
  assert.ok(
    markers.some((event) => event.payload.container === "restored"),
    JSON.stringify(markers.map((event) => event.payload)),
  );
});
