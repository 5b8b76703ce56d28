/**
 * `verdict clean` removes the derived images its state folder made, and nothing else: another
 * folder's derived images and images Verdict did not derive stay, and an image a container still
 * uses is left and named. The next eval builds what it needs again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { stateOwner } from "../../src/eval/trial/run_owner.ts";
import { requireDocker } from "../_docker.ts";
import { scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";
import { runVerdictInProcess } from "./_in_process.ts";

async function images(owner: string): Promise<string[]> {
  const docker = await requireDocker();
  const text = await docker.text([
    "images",
    "--filter",
    "label=verdict.derived",
    "--filter",
    `label=verdict.owner=${owner}`,
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
  return text.split("\n").filter(Boolean);
}

Deno.test("clean removes this folder's derived images only, and leaves one a container uses", async () => {
  const docker = await requireDocker();
  await using dir = await scratchDir("clean");
  const homes = [join(dir.path, "a"), join(dir.path, "b")];
  for (const [index, home] of homes.entries()) {
    // Each folder its own task, so each makes its own derived image.
    const task = join(dir.path, `tasks-${index}`, `clean-${index}`);
    const files = minimalTask(`clean-${index}`);
    files["workspace/README.md"] = `A workspace of ${home}.\n`;
    await writeFiles(task, files);
    const evaluated = await runVerdictInProcess([
      "eval",
      task,
      "--agent",
      "oracle",
      "--home",
      home,
    ]);
    assert.equal(evaluated.code, 0, evaluated.stderr);
  }
  const [mine, theirs] = homes.map((home) => stateOwner(home));
  const made = await images(mine);
  assert.ok(made.length > 0, "the eval made a derived image");
  const kept = await images(theirs);
  assert.ok(kept.length > 0);

  const holder = await docker.text(["create", "--label", "verdict.test=clean_test", made[0]]);
  try {
    const cleaned = await runVerdictInProcess(["clean", "--home", homes[0]]);
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.match(cleaned.stdout, new RegExp(`removed ${made.length - 1} derived image`));
    assert.match(cleaned.stdout, new RegExp(`left 1 that a container still uses: ${made[0]}`));
    assert.deepEqual(await images(mine), [made[0]]);
    assert.deepEqual(await images(theirs), kept, "another folder's images stay");
  } finally {
    await docker.run(["rm", "--force", holder]);
  }
  const again = await runVerdictInProcess(["clean", "--home", homes[0]]);
  assert.match(again.stdout, /removed 1 derived image /);
  assert.deepEqual(await images(mine), []);
  assert.equal((await docker.run(["image", "inspect", "verdict/busybox"])).code, 0);
  // The next eval builds what it needs again.
  const rerun = await runVerdictInProcess([
    "eval",
    join(dir.path, "tasks-0", "clean-0"),
    "--agent",
    "oracle",
    "--home",
    homes[0],
  ]);
  assert.equal(rerun.code, 0, rerun.stderr);
  await runVerdictInProcess(["clean", "--home", homes[0]]);
  await runVerdictInProcess(["clean", "--home", homes[1]]);
});
