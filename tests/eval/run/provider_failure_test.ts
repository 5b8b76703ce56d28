/**
 * A provider that fails is infrastructure's fault, not the agent's: an installed (`cmd:`) agent
 * whose model calls the upstream answers with 500 past the retries fails its trial as
 * `infrastructure_error` (exit 3), the upstream's status in the reason; a trial whose agent did
 * the work anyway stays a pass, with the failed call counted; and the upstream sees the
 * gateway's attempts only, since the agent is told not to retry (`x-should-retry: false`).
 * Which upstream failures count (timeouts, 429, cuts, 401, malformed or truncated answers) is
 * tests/gateway/live_backend_test.ts's, over real HTTP.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { EVENT, last } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { fakeProvider, openAiReply } from "../../model/_fake_provider.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, runVerdict, scratchDir } from "../../_verdict.ts";

/** Asks the model once, says what came back, then does the slugify task's work itself. */
const ASKS_THEN_WORKS = `import json, os, shutil, urllib.error, urllib.request
url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
request = urllib.request.Request(url, data=body, method="POST", headers={
    "Content-Type": "application/json", "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
try:
    urllib.request.urlopen(request, timeout=60).read()
    print("answered")
except urllib.error.HTTPError as error:
    print(f"HTTP {error.code}, x-should-retry: {error.headers.get('x-should-retry')}")
if "slugify" in open(os.environ["VERDICT_INSTRUCTION_FILE"]).read():
    shutil.copytree("/verdict/agent/solution", ".", dirs_exist_ok=True)
    print("did the work")
`;

Deno.test("a provider failing past the retries makes a failed trial infrastructure's (exit 3), a passed one stays a pass; the agent is told not to retry; once it is back, resume --retry-errors gives the failed trial a verdict", async () => {
  await requireDocker();
  await using scratch = await scratchDir("provider-failure");
  const agentFiles = join(scratch.path, "agent");
  await copyTree("tasks/fix-slugify/solution/files", join(agentFiles, "solution"));
  await Deno.writeTextFile(join(agentFiles, "agent.py"), ASKS_THEN_WORKS);
  let down = true;
  await using upstream = fakeProvider(
    [],
    () =>
      down
        ? { status: 500, body: { error: { message: "the provider is down" } } }
        : openAiReply("hello"),
  );
  const home = join(scratch.path, "home");
  const result = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "tasks/fix-csv-quoting",
    "--agent",
    "cmd:python3 /verdict/agent/agent.py",
    "--agent-files",
    agentFiles,
    "--model",
    "openai:gpt-test",
    "--base-url",
    `${upstream.url}/v1`,
    "--retries",
    "1",
    "--no-cost",
    "--home",
    home,
  ], { env: { OPENAI_API_KEY: "sk-test" } });
  assert.equal(result.code, 3, result.stdout + result.stderr);
  const run = /^run (\S+):/m.exec(result.stdout)![1];
  const results = JSON.parse(
    await Deno.readTextFile(join(home, "runs", run, "results.json")),
  ) as Results;
  const trials = new Map(results.trials.map((trial) => [trial.task, trial]));

  const failed = trials.get("fix-csv-quoting")!;
  assert.equal(failed.verdict, "fail");
  assert.equal(failed.bucket, "infrastructure_error", failed.reason);
  assert.match(
    failed.reason,
    /^the model provider failed 1 call: openai endpoint unavailable after 2 attempts: HTTP 500: .*the provider is down/,
  );
  const passed = trials.get("fix-slugify")!;
  assert.deepEqual([passed.verdict, passed.bucket], ["pass", "pass"], passed.reason);

  // Two attempts per call (--retries 1), and the agent asked once per trial: no multiplication.
  assert.equal(upstream.received.length, 4);
  const store = openStore(join(home, "verdict.db"));
  try {
    for (const trial of [failed, passed]) {
      const events = store.events.read(trial.session);
      assert.match(
        last(events, EVENT.agentCmd)!.payload.stdout,
        /^HTTP 502, x-should-retry: false$/m,
      );
      assert.deepEqual(last(events, EVENT.agentStopped)!.payload.provider_failure?.calls, 1);
      assert.equal(last(events, EVENT.gatewayAnswer)!.payload.status, 502);
    }
  } finally {
    store.close();
  }
  assert.match(result.stdout, /1 infrastructure/);

  // The provider is back: the infrastructure error is run again as a new attempt and gets a
  // verdict (this agent leaves the CSV task undone), the pass is kept, the earlier attempt stays.
  down = false;
  const retried = await runVerdict(["resume", run, "--retry-errors", "--home", home], {
    env: { OPENAI_API_KEY: "sk-test" },
  });
  assert.equal(retried.code, 0, retried.stdout + retried.stderr);
  assert.match(retried.stdout, /2 of 2 trials: 1 passed, 1 failed/);
  const after = JSON.parse(
    await Deno.readTextFile(join(home, "runs", run, "results.json")),
  ) as Results;
  const now = new Map(after.trials.map((trial) => [trial.task, trial]));
  const redone = now.get("fix-csv-quoting")!;
  assert.deepEqual([redone.verdict, redone.bucket], ["fail", "agent_failure"], redone.reason);
  assert.notEqual(redone.session, failed.session);
  assert.equal(now.get("fix-slugify")!.session, passed.session);
  assert.deepEqual(after.retried, [{
    task: "fix-csv-quoting",
    repeat: 0,
    retry: 0,
    session: failed.session,
    reason: failed.reason,
  }]);
  const again = openStore(join(home, "verdict.db"));
  try {
    const events = again.events.read(redone.session);
    assert.equal(events[0].kind, EVENT.trialStarted);
    assert.equal(
      (events[0].payload as { retry_of?: string }).retry_of,
      failed.session,
    );
    assert.match(last(events, EVENT.agentCmd)!.payload.stdout, /^answered$/m);
  } finally {
    again.close();
  }
  const verified = await runVerdict(["verify", run, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});
