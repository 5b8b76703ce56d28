import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { openStore } from "../../../src/store/store.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir, verdictCommand } from "../../_verdict.ts";

const TASKS = ["tasks/fix-slugify", "tasks/shell-count-errors", "tasks/recovery/recovery-counter"];
const POINTS = ["before-model@3", "after-response@3", "mid-tool@3", "after-result@3", "grading"];

/** Runs eval with the crash knob, sends SIGKILL the moment the knob's point is reached, returns the run id. */
async function killAt(point: string, home: string, tasks = TASKS): Promise<string> {
  const child = verdictCommand([
    "eval",
    ...tasks,
    "--model",
    `scripted:crash=${point}`,
    "--concurrency",
    "3",
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

Deno.test("SIGKILL at each point of a step, then resume: every trial gets the uninterrupted verdict, exactly once", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("crash");
  const baseline = await runVerdict([
    "eval",
    ...TASKS.slice(0, 2),
    "--json",
    "--home",
    join(scratch.path, "baseline"),
  ]);
  assert.equal(baseline.code, 0, baseline.stderr);
  const expected = new Map(
    (JSON.parse(baseline.stdout) as Results).trials.map((trial) => [trial.task, trial.verdict]),
  );

  for (const point of POINTS) {
    const home = join(scratch.path, point.replace("@", "-"));
    const run = await killAt(point, home);
    const resumed = await runVerdict(["resume", run, "--json", "--home", home]);
    assert.equal(resumed.code, 0, `${point}: ${resumed.stderr}`);
    const results = JSON.parse(resumed.stdout) as Results;
    assert.equal(results.trials.length, 3, point);
    for (const trial of results.trials) {
      if (trial.task === "recovery-counter") {
        assert.equal(
          trial.verdict,
          "pass",
          `${point}: exactly one delivery and resumed: ${trial.reason}`,
        );
      } else assert.equal(trial.verdict, expected.get(trial.task), `${point}: ${trial.task}`);
    }
    const verify = await runVerdict(["verify", run, "--home", home]);
    assert.equal(verify.code, 0, `${point}: ${verify.stdout}`);
    assert.deepEqual(
      await containersLabelled(docker, `verdict.run=${run}`),
      [],
      `${point}: containers left behind`,
    );

    const counter = results.trials.find((trial) => trial.task === "recovery-counter")!;
    const delivery = deliveryOf(home, counter.session);
    assert.equal(delivery.intents, 1, `${point}: the delivery was asked for once`);
    if (delivery.interrupted) {
      assert.equal(delivery.unknown, 1, `${point}: the interrupted delivery is answered unknown`);
    }
  }
  // Alone in its run, the counter is the trial the knob stops, between the delivery's intent and
  // its result: the one case that must end in an outcome-unknown notice, never a second delivery.
  const home = join(scratch.path, "counter-mid-tool");
  const run = await killAt("mid-tool@3", home, TASKS.slice(2));
  const resumed = await runVerdict(["resume", run, "--json", "--home", home]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const [counter] = (JSON.parse(resumed.stdout) as Results).trials;
  assert.equal(counter.verdict, "pass", counter.reason);
  assert.deepEqual(deliveryOf(home, counter.session), {
    intents: 1,
    interrupted: true,
    unknown: 1,
  });
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

Deno.test("a trial whose container is gone resumes in a new one restored from its latest snapshot", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("crash");
  // Bundled tasks only: with its container gone, a delivery in flight is lost with it, and the
  // counter task then, rightly, reports an unknown outcome rather than a second delivery.
  const run = await killAt("after-result@3", scratch.path, TASKS.slice(0, 2));
  for (const id of await containersLabelled(docker, `verdict.run=${run}`)) {
    await docker.run(["rm", "--force", id]);
  }
  const resumed = await runVerdict(["resume", run, "--json", "--home", scratch.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const results = JSON.parse(resumed.stdout) as Results;
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

Deno.test("resume refuses a different model, naming the difference; a finished run has nothing to do", async () => {
  await requireDocker();
  await using scratch = await scratchDir("crash");
  const run = await killAt("after-response@2", scratch.path);
  const refused = await runVerdict([
    "resume",
    run,
    "--model",
    "scripted:faults=0.5",
    "--home",
    scratch.path,
  ]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /cannot resume run \w+: the model is scripted:faults=0\.5, the run used scripted:crash=after-response@2/,
  );
  const resumed = await runVerdict(["resume", run, "--home", scratch.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const again = await runVerdict(["resume", run, "--home", scratch.path]);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /0 trials \(\d+ tasks × 1\)/);
});
