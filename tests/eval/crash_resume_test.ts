import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { openStore } from "../../src/store/store.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir, verdictCommand } from "../_verdict.ts";

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

    const store = openStore(join(home, "verdict.db"));
    const counter = results.trials.find((trial) => trial.task === "recovery-counter")!;
    const events = store.events.read(counter.session);
    store.close();
    const deliveries = events.filter((event) =>
      event.kind === "tool.intent" &&
      String(event.payload.arguments && (event.payload.arguments as { command?: string }).command)
        .includes("deliver.sh")
    );
    const unknown = events.filter((event) =>
      event.kind === "tool.result" && event.payload.outcome_unknown === true
    );
    assert.equal(deliveries.length, 1, `${point}: the delivery was asked for once`);
    if (
      point === "mid-tool@3" &&
      events.some((event) => event.kind === "trial.resumed" && event.payload.phase === "agent")
    ) {
      assert.equal(
        unknown.length,
        1,
        "the interrupted delivery is answered 'outcome unknown', not run again",
      );
      assert.match(String(unknown[0].payload.content), /^outcome unknown/);
    }
  }
});

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
