/**
 * `--agent-files DIR` whatever the folder's modes: a 0700 folder with 0600 files (what `mktemp -d`
 * and a cautious umask make) is copied into the agent's container, readable by the agent user and
 * not writable by it; the Python fixture agent solves its task from there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";

// The agent first tries to change its own program: that must fail (exit 9 if it does not).
const AGENT =
  "cmd:if (echo '# changed' >> /verdict/agent/agent.py) 2>/dev/null; then exit 9; fi; " +
  "python3 /verdict/agent/agent.py";

async function lockDown(folder: string): Promise<void> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) await lockDown(path);
    else if (entry.isFile) await Deno.chmod(path, 0o600);
  }
  await Deno.chmod(folder, 0o700);
}

Deno.test("--agent-files from a 0700 folder of 0600 files runs the agent, which cannot change it", async () => {
  await requireDocker();
  await using home = await scratchDir("cmd-files");
  const files = join(home.path, "agent");
  await copyTree(join(PROJECT_ROOT, "tests/fixtures/agents/py_agent"), files);
  await lockDown(files);
  const evaluated = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "--agent",
    AGENT,
    "--agent-files",
    files,
    "--seed",
    "33",
    "--home",
    home.path,
    "--json",
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  const [trial] = JSON.parse(evaluated.stdout).trials;
  assert.equal(trial.stop_reason, "completed", JSON.stringify(trial));
  assert.deepEqual([trial.verdict, trial.bucket], ["pass", "pass"], trial.reason);
});
