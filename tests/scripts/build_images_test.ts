/**
 * scripts/build-images.sh compiles the Python image's modules, checked by their sources' hashes:
 * a grader (with its environment) and an agent then start Python from bytecode instead of
 * compiling pytest at every start, and a source changed after the build is compiled again.
 */
import assert from "node:assert/strict";
import { GRADER_ENV } from "../../src/grading/grader_image.ts";
import { requireDocker } from "../_docker.ts";

const IMAGE = "verdict/python:3.11";
const PREFIX = "/usr/lib/verdict-pycache/";

/** Where each module `python3 -v` loaded came from, in a fresh container of the image. */
async function loadedFrom(options: string[], script: string): Promise<string[]> {
  const docker = await requireDocker();
  const result = await docker.run([
    "run",
    "--rm",
    "--network",
    "none",
    ...options,
    IMAGE,
    "sh",
    "-c",
    script,
  ]);
  assert.equal(result.code, 0, result.stderr);
  return [...result.stderr.matchAll(/^# code object from '?([^'\n]+)'?$/gm)].map((m) => m[1]);
}

Deno.test("a grader's Python reads pytest and its standard library from the image's compiled tree", async () => {
  const env = Object.entries(GRADER_ENV).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const sources = await loadedFrom(["-u", "1000", ...env], 'python3 -v -c "import pytest"');
  assert(sources.length > 100, `only ${sources.length} modules loaded`);
  assert.deepEqual(sources.filter((source) => !source.startsWith(PREFIX)), []);
});

Deno.test("the agent's Python reads the bytecode in the image's tree", async () => {
  const sources = await loadedFrom(["-u", "1000"], 'python3 -v -c "import pytest"');
  assert(sources.length > 100, `only ${sources.length} modules loaded`);
  assert.deepEqual(sources.filter((source) => !source.includes("/__pycache__/")), []);
});

Deno.test("a module changed after the image was built is compiled again, not taken from its old bytecode", async () => {
  const env = Object.entries(GRADER_ENV).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const module = "/usr/lib/python3.11/json/__init__.py";
  const sources = await loadedFrom(
    env,
    `echo 'CHANGED = 1' >> ${module} && python3 -v -c "import json; assert json.CHANGED == 1"`,
  );
  assert(sources.includes(module), "json was not compiled from its changed source");
});
