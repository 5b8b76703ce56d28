import assert from "node:assert/strict";
import { join } from "node:path";
import { InfrastructureError, InputError } from "../../../src/core/errors.ts";
import { baseImages, readyHarborImages } from "../../../src/eval/setup/harbor_images.ts";
import type { Docker } from "../../../src/engine/docker.ts";
import { DockerSandbox } from "../../../src/engine/docker_sandbox.ts";
import { loadHarborTask } from "../../../src/task/harbor_task.ts";
import type { Task } from "../../../src/task/task.ts";
import { requireDocker } from "../../_docker.ts";
import { scratchDir } from "../../_verdict.ts";

// Task folders named for this file alone, so that the images they build (tagged
// verdict-harbor/<folder>:<hash>) are this file's to remove.
const PREFIX = "harbor-images-test";

async function writeTask(
  parent: string,
  name: string,
  files: { dockerfile?: string; environment?: string },
): Promise<string> {
  const dir = join(parent, `${PREFIX}-${name}`);
  await Deno.mkdir(join(dir, "tests"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "task.toml"),
    `version = "1.0"\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n\n` +
      `[environment]\n${files.environment ?? ""}\n`,
  );
  await Deno.writeTextFile(join(dir, "instruction.md"), "Do nothing.\n");
  await Deno.writeTextFile(
    join(dir, "tests", "test.sh"),
    "echo 1 > /logs/verifier/reward.txt\n",
  );
  if (files.dockerfile !== undefined) {
    await Deno.mkdir(join(dir, "environment"));
    await Deno.writeTextFile(join(dir, "environment", "Dockerfile"), files.dockerfile);
  }
  return dir;
}

// Removes the image a task of this file names, if the engine has it.
async function removeImage(docker: Docker, task: Task): Promise<void> {
  assert.match(task.manifest.image, new RegExp(`^verdict-harbor/${PREFIX}-`));
  if (await docker.hasImage(task.manifest.image)) {
    await docker.run(["image", "rm", task.manifest.image]);
  }
}

/** What readying the task's image threw, or undefined when it did not. */
function readyError(docker: Docker, task: Task): Promise<unknown> {
  return readyHarborImages([task], new DockerSandbox(docker)).then(
    () => undefined,
    (error: unknown) => error,
  );
}

function inputProblem(error: unknown): string {
  assert.ok(error instanceof InputError, `an InputError, not ${error}`);
  return error.message;
}

Deno.test("baseImages names each base image with its line, less stages, scratch and ARG names", () => {
  assert.deepEqual(
    baseImages(
      [
        "# syntax comment",
        "ARG BASE=verdict/busybox",
        "FROM verdict/python:3.11 AS build",
        "RUN make",
        "from build as test",
        "FROM --platform=linux/amd64 verdict/busybox",
        "FROM $BASE",
        "FROM ${BASE}",
        "FROM scratch",
        "  FROM   Build",
        "COPY --from=build /x /y",
      ].join("\n"),
    ),
    [
      { image: "verdict/python:3.11", line: 3 },
      { image: "verdict/busybox", line: 6 },
    ],
  );
  assert.deepEqual(baseImages("from debian:12\n"), [{ image: "debian:12", line: 1 }]);
  assert.deepEqual(baseImages("FROM\n"), []);
});

Deno.test("a Dockerfile is built offline once, its WORKDIR becoming the task's workdir", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("harbor-images");
  const task = await loadHarborTask(
    await writeTask(scratch.path, "build", {
      dockerfile: "FROM verdict/busybox\nWORKDIR /srv/app\n",
    }),
  );
  const sandbox = new DockerSandbox(docker);
  try {
    await removeImage(docker, task);
    const [built] = await readyHarborImages([task], sandbox);
    assert.equal(built.task.manifest.workdir, "/srv/app");
    assert.equal(built.task.manifest.image, task.manifest.image);
    assert.equal(typeof built.buildLog, "string");
    assert.match(built.buildLog!, /WORKDIR \/srv\/app/);
    const inspected = await docker.text([
      "image",
      "inspect",
      "--format",
      '{{index .Config.Labels "verdict.harbor-task"}}',
      task.manifest.image,
    ]);
    assert.equal(inspected.trim(), task.id);
    const [cached] = await readyHarborImages([task], sandbox);
    assert.equal(cached.buildLog, null, "the second call builds nothing");
    assert.equal(cached.task.manifest.workdir, "/srv/app");
  } finally {
    await removeImage(docker, task);
  }
});

Deno.test("a missing base image is named with its Dockerfile line before any build", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("harbor-images");
  const dir = await writeTask(scratch.path, "missing-base", {
    dockerfile: "# the base is not here\nFROM verdict/no-such-base:1\nWORKDIR /app\n",
  });
  const task = await loadHarborTask(dir);
  try {
    const error = await readyError(docker, task);
    const message = inputProblem(error);
    assert.ok(message.includes(join(dir, "environment", "Dockerfile")), message);
    assert.ok(message.includes("FROM (line 2)"), message);
    assert.ok(message.includes("verdict/no-such-base:1"), message);
    assert.equal(await docker.hasImage(task.manifest.image), false);
  } finally {
    await removeImage(docker, task);
  }
});

Deno.test("a failing build is an input error holding the build's last lines", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("harbor-images");
  const dir = await writeTask(scratch.path, "run-false", {
    dockerfile: "FROM verdict/busybox\nRUN echo verdict-build-step-ran && false\n",
  });
  const task = await loadHarborTask(dir);
  try {
    const error = await readyError(docker, task);
    const message = inputProblem(error);
    assert.ok(message.includes(join(dir, "environment", "Dockerfile")), message);
    assert.match(message, /docker build failed: /);
    assert.match(message, /verdict-build-step-ran/, "the build's own output is shown");
    assert.match(message, /no network/);
    assert.equal(await docker.hasImage(task.manifest.image), false);
  } finally {
    await removeImage(docker, task);
  }
});

Deno.test("a build past build_timeout_sec is stopped and named", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("harbor-images");
  const dir = await writeTask(scratch.path, "slow-build", {
    dockerfile: "FROM verdict/busybox\nRUN sleep 30\n",
    environment: "build_timeout_sec = 1.0",
  });
  const task = await loadHarborTask(dir);
  try {
    const started = performance.now();
    const error = await readyError(docker, task);
    const message = inputProblem(error);
    assert.ok(performance.now() - started < 20_000, "the build was stopped well before 30 s");
    assert.match(message, /environment\.build_timeout_sec \(1 s\)/);
    assert.match(message, /raise \[environment\]\.build_timeout_sec/);
    assert.equal(await docker.hasImage(task.manifest.image), false);
  } finally {
    await removeImage(docker, task);
  }
});

Deno.test("a docker_image the engine lacks is an infrastructure error: Verdict never pulls", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("harbor-images");
  const dir = await writeTask(scratch.path, "docker-image", {
    environment: 'docker_image = "verdict/no-such-image:1"',
  });
  const task = await loadHarborTask(dir);
  assert.equal(task.manifest.image, "verdict/no-such-image:1");
  const error = await readyError(docker, task);
  assert.ok(error instanceof InfrastructureError, `an InfrastructureError, not ${error}`);
  assert.match(error.message, /verdict\/no-such-image:1/);
  assert.match(error.message, /never pulls/);
  assert.ok(error.message.includes(join(dir, "task.toml")), error.message);
  assert.equal(await docker.hasImage("verdict/no-such-image:1"), false);
});
