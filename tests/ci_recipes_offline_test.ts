/**
 * The merge job of the sharded GitHub recipe (docs/sharding.md) needs no network once its artifacts
 * are downloaded: its `run:` steps, exactly as the docs write them, run in a Debian 12 container
 * with no network (Verdict's own python image): the checkout installs the verdict command from
 * Deno's cache, and merge, verify, stats and the jq gate pass over four signed shards. The steps
 * that need the network (checkout, Deno's setup, the artifacts, an eval against a model) are the
 * ones this test stands in for: the checkout and Deno are mounted, the shards are made here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { signingKey } from "../src/core/ed25519.ts";
import { yamlBlocks } from "./_docs.ts";
import { requireDocker } from "./_docker.ts";
import { PROJECT_ROOT, scratchDir } from "./_verdict.ts";
import { runVerdictInProcess } from "./cli/_in_process.ts";

const SEED = btoa("s".repeat(32));
const TASKS = ["tasks/shell-count-errors", "tasks/shell-rotate-logs"];

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
}

async function mergeJobSteps(): Promise<Step[]> {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, "docs", "sharding.md"));
  const workflow = yamlBlocks(text).map((block) => parseYaml(block))
    .find((doc) => doc?.jobs?.merge !== undefined) as { jobs: { merge: { steps: Step[] } } };
  return workflow.jobs.merge.steps.filter((step) => step.run !== undefined);
}

/** One script per step, run as GitHub runs them: bash -eo pipefail, PATH extended by GITHUB_PATH. */
function driver(steps: Step[], expressions: Record<string, string>): Record<string, string> {
  const substitute = (text: string) =>
    text.replaceAll(/\$\{\{\s*([\w.]+)\s*\}\}/g, (whole, name: string) => {
      assert.ok(name in expressions, `the test gives no value for ${whole}`);
      return expressions[name];
    });
  const files: Record<string, string> = {};
  const lines = ["set -e", "export GITHUB_PATH=/job/github_path", ': > "$GITHUB_PATH"'];
  for (const [index, step] of steps.entries()) {
    files[`step-${index}.sh`] = substitute(step.run!);
    const env = Object.entries(step.env ?? {}).map(([key, value]) =>
      `${key}='${substitute(value).replaceAll("'", "'\\''")}'`
    );
    lines.push(
      `echo "::step ${step.name}"`,
      `PATH="$(tac "$GITHUB_PATH" | tr '\\n' ':')$PATH" ${env.join(" ")} ` +
        `bash --noprofile --norc -eo pipefail /job/step-${index}.sh`,
    );
  }
  files["driver.sh"] = lines.join("\n") + "\n";
  return files;
}

Deno.test("the sharded recipe's merge job runs as written in a Debian container with no network: install, merge, verify, stats, the jq gate", async () => {
  const docker = await requireDocker();
  await using job = await scratchDir("ci-offline");
  for (let index = 1; index <= 4; index++) {
    const home = join(job.path, "shards", `shard-${index}`);
    const shard = await runVerdictInProcess(
      ["eval", ...TASKS, "--agent", "oracle", "--shard", `${index}/4`, "--home", home],
      { VERDICT_SIGNING_KEY: SEED },
    );
    assert.equal(shard.code, 0, shard.stderr);
  }
  const publicKey = (await signingKey(SEED)).publicKey;
  const files = driver(await mergeJobSteps(), {
    "secrets.VERDICT_SIGNING_KEY": SEED,
    "vars.VERDICT_PUBLIC_KEY": publicKey,
  });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(join(job.path, name), text);
  }
  const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");
  const ran = await docker.run([
    "run",
    "--rm",
    "--network",
    "none",
    "--label",
    "verdict.test=ci_recipes_offline",
    "--volume",
    `${Deno.execPath()}:/usr/local/bin/deno:ro`,
    "--volume",
    `${denoDir}:/deno-dir:ro`,
    "--env",
    "DENO_DIR=/deno-dir",
    "--env",
    "HOME=/root",
    "--volume",
    `${job.path}:/job`,
    "--volume",
    `${PROJECT_ROOT}:/job/.verdict-src:ro`,
    "--workdir",
    "/job",
    "verdict/python:3.11",
    "bash",
    "/job/driver.sh",
  ]);
  const output = new TextDecoder().decode(ran.stdout) + ran.stderr;
  assert.equal(ran.code, 0, output);
  assert.match(output, /::step Install the verdict command\n[\s\S]*installed verdict/);
  assert.match(output, /::step merge, verify, gate\n/);
  assert.match(output, new RegExp(`signed by ed25519:\\S+ \\(public key ${publicKey}\\)`));
  const merged = JSON.parse(await Deno.readTextFile(join(job.path, "results.json")));
  assert.deepEqual(
    [merged.summary.trials, merged.summary.passed],
    [TASKS.length, TASKS.length],
  );
});
