import assert from "node:assert/strict";
import { join } from "node:path";
import { ATIF_TRAJECTORY } from "../report/_atif_schema.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

Deno.test("show --format atif: a scripted eval's session is valid ATIF-v1.7 on stdout", async () => {
  await using scratch = await scratchDir("show-atif");
  const home = ["--home", scratch.path];
  const evaluated = await runVerdictInProcess([
    "eval",
    "tasks/fix-slugify",
    "--model",
    "scripted",
    ...home,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const run = /^run ([0-9a-f]+)/m.exec(evaluated.stdout)?.[1];
  assert(run, evaluated.stdout);
  const results = JSON.parse(
    await Deno.readTextFile(join(scratch.path, "runs", run, "results.json")),
  ) as { trials: { session: string }[] };
  const session = results.trials[0].session;

  const shown = await runVerdictInProcess(["show", session, "--format", "atif", ...home]);
  assert.equal(shown.code, 0, shown.stderr);
  const checked = ATIF_TRAJECTORY.safeParse(JSON.parse(shown.stdout));
  assert(checked.success, checked.error?.message);
  const atif = checked.data;
  assert.equal(atif.schema_version, "ATIF-v1.7");
  assert.equal(atif.session_id, session);
  assert.deepEqual({ ...atif.agent }, { name: "loop", version: "0.1.0", model_name: "scripted" });
  assert.equal(atif.steps[0].source, "user");
  const agentSteps = atif.steps.filter((step) => step.source === "agent");
  assert(agentSteps.length > 1);
  assert(agentSteps.every((step) => step.timestamp && step.metrics?.prompt_tokens));
  assert(agentSteps.some((step) => (step.observation?.results.length ?? 0) > 0));
  assert.equal(atif.final_metrics?.total_steps, atif.steps.length);
  assert.equal((atif.extra?.verdict as { verdict: string }).verdict, "pass");

  // The same record gives the same bytes again.
  const again = await runVerdictInProcess(["show", session, "--format", "atif", ...home]);
  assert.equal(again.stdout, shown.stdout);

  const clash = await runVerdictInProcess(["show", session, "--json", "--format", "atif", ...home]);
  assert.equal(clash.code, 2);
  assert.match(clash.stderr, /--json and --format atif disagree/);
  const unknown = await runVerdictInProcess(["show", session, "--format", "yaml", ...home]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown --format 'yaml'; write --format text, json, atif/);
});
