import assert from "node:assert/strict";
import { join } from "node:path";
import { CorruptionError } from "../../../src/core/errors.ts";
import { recordedChoices } from "../../../src/eval/setup/loop_choices.ts";
import { runConfig } from "../../../src/eval/setup/run_identity.ts";
import { openStore } from "../../../src/store/store.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const RECORDS = join(PROJECT_ROOT, "tests/fixtures/records_0_1_0");

/** A configuration as `eval` writes it for a one-task run. */
function writtenConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const config: Record<string, unknown> = {
    agent: "loop",
    model: "scripted",
    settings: {
      base_url: null,
      cost: "priced",
      policy: "default",
      prices_file: null,
      prices_sha256: null,
      tools: ["shell"],
    },
    seed: 1,
    repeat: 1,
    tasks: ["t"],
    suite_digest: "d",
    harness_version: "0.1.0",
    attempt: 1,
    concurrency: 1,
    paths: ["tasks/t"],
    task_dirs: { t: "tasks/t" },
    categories: { t: "bugfix" },
    agent_needs: { model: true, solutions: false },
    ...overrides,
  };
  // An override of undefined leaves the field out.
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}

const asRun = (config: Record<string, unknown>) => ({ id: "r1", config });

Deno.test("every run recorded by 0.1.0 parses as a RunConfig, its agent's needs from the registry", async () => {
  await using home = await scratchDir("config");
  await copyTree(RECORDS, home.path);
  const store = openStore(join(home.path, "verdict.db"));
  try {
    const configs = new Map(store.runs.list().map((run) => [run.id, runConfig(run)]));
    assert.equal(configs.size, 4);
    const oracle = configs.get("31df158416ce")!;
    assert.equal(oracle.agent, "oracle");
    assert.deepEqual(oracle.agent_needs, { model: false, solutions: true });
    assert.equal(oracle.settings, null);
    assert.equal(oracle.waive_model_only, false);
    const loop = configs.get("d51dc8b61c15")!;
    assert.deepEqual(loop.agent_needs, { model: true, solutions: false });
    assert.equal(loop.settings?.cost, "priced");
    assert.deepEqual(recordedChoices(loop), {
      model: "scripted:crash=mid-tool@2",
      repeat: 1,
      baseUrl: undefined,
      pricesFile: undefined,
      noCost: false,
      policyFile: undefined,
    });
  } finally {
    store.close();
  }
});

Deno.test("a tasks check run recorded with a label reads as the registry's agent, waiving as recorded", () => {
  const config = runConfig(
    asRun(writtenConfig({
      agent: "oracle (tasks check)",
      model: null,
      settings: null,
      waive_model_only: true,
      agent_needs: undefined,
    })),
  );
  assert.equal(config.agent, "oracle");
  assert.deepEqual(config.agent_needs, { model: false, solutions: true });
  assert.equal(config.waive_model_only, true);
});

for (
  const [what, config, field] of [
    ["a missing field", writtenConfig({ concurrency: undefined }), "concurrency"],
    ["a field of the wrong kind", writtenConfig({ tasks: "t" }), "tasks"],
    ["loop settings that do not parse", writtenConfig({ settings: { cost: "free" } }), "settings."],
    [
      "an agent no registry entry has and no recorded needs",
      writtenConfig({ agent: "claude", agent_needs: undefined }),
      "agent",
    ],
  ] as const
) {
  Deno.test(`a run config with ${what} is a damaged record naming the run and the field`, () => {
    assert.throws(
      () => runConfig(asRun(config)),
      (error: unknown) =>
        error instanceof CorruptionError && error.exitCode === 1 &&
        error.message.includes("run r1 (config), field " + field),
    );
  });
}

Deno.test("a run of a library user's own agent parses with the needs its record states", () => {
  const config = runConfig(asRun(writtenConfig({ agent: "my-agent" })));
  assert.equal(config.agent, "my-agent");
  assert.deepEqual(config.agent_needs, { model: true, solutions: false });
});

Deno.test("resume and compare of a run whose config lacks a field exit 1 naming the run and the field", async () => {
  await using home = await scratchDir("config");
  await Deno.mkdir(join(home.path, "runs"), { recursive: true });
  const store = openStore(join(home.path, "verdict.db"));
  store.runs.create({
    id: "abc123",
    config: writtenConfig({ concurrency: undefined }),
    createdAt: 0,
  });
  store.runs.create({ id: "def456", config: writtenConfig(), createdAt: 0 });
  store.runs.setStatus("abc123", "interrupted");
  store.close();
  const resumed = await runVerdictInProcess(["resume", "abc123", "--home", home.path]);
  assert.equal(resumed.code, 1, resumed.stdout + resumed.stderr);
  assert.match(resumed.stderr, /run abc123 \(config\), field concurrency: /);
  assert.doesNotMatch(resumed.stderr, /internal error|TypeError/);
  const compared = await runVerdictInProcess(["compare", "def456", "abc123", "--home", home.path]);
  assert.equal(compared.code, 1, compared.stdout + compared.stderr);
  assert.match(compared.stderr, /run abc123 \(config\), field concurrency: /);
});

Deno.test("an unknown --agent is a usage error (exit 2) listing the registry's agents", async () => {
  const result = await runVerdictInProcess(["eval", "--agent", "gpt", "tests/fixtures/check"]);
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.match(
    result.stderr,
    /--agent gpt is not an agent: use loop, oracle, nop, claude-code, codex/,
  );
});
