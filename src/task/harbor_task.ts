/**
 * Loading a Harbor (Terminal-Bench) task folder: `task.toml`, `instruction.md`, `environment/`
 * (a `Dockerfile` and its build context, or `[environment].docker_image`), `tests/test.sh` and an
 * optional `solution/solve.sh`. Validated with the same care as `task.yaml` (every problem at
 * once, each naming the file, the field and the fix, exit 2), and a setting Verdict cannot honour
 * (GPUs, network access, a Docker Compose file, ...) refused by name before any run. The task's
 * `manifest` is synthesised so the rest of Verdict works on it unchanged.
 *
 * @module
 */
import { basename, join } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { canonicalJson } from "../core/canonical_json.ts";
import { InputError, type InputProblem } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { readUtf8File } from "../core/input_file.ts";
import { schemaProblems } from "../core/schema_problems.ts";
import { readTree } from "./file_tree.ts";
import { type Manifest, MANIFEST_SCHEMA } from "./manifest.ts";
import type { HarborSettings, Task } from "./task.ts";
import { HARBOR_CONFIG_SCHEMA } from "./_harbor_config.ts";
import { leadOut } from "./_lead_out.ts";
import { isFile, refuseBothManifests, statOrNull } from "./_manifest_files.ts";

/** What `task.toml` alone settles: a task's Harbor settings but those its files decide. */
export type HarborConfigSettings = Omit<HarborSettings, "solveScript">;

const COMPOSE_FILES = ["docker-compose.yaml", "docker-compose.yml"];

/**
 * Whether a folder is a Harbor task folder (holds a `task.toml`).
 *
 * @example
 * ```ts
 * import { isHarborTaskFolder } from "./harbor_task.ts";
 * console.log(await isHarborTaskFolder("tasks/fix-slugify")); // false: a Verdict task
 * ```
 */
export function isHarborTaskFolder(dir: string): Promise<boolean> {
  return isFile(join(dir, "task.toml"));
}

/**
 * Parses and validates the text of a `task.toml`. `environment.dockerfile` is null: whether the
 * task has one is for its folder to say.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHarborToml } from "./harbor_task.ts";
 * const settings = parseHarborToml('version = "1.0"\n[agent]\ntimeout_sec = 120.0\n', "task.toml");
 * assert.equal(settings.agentTimeoutSec, 120);
 * assert.equal(settings.verifier.timeoutSec, 600); // Harbor's default
 * ```
 * @throws {InputError} on bad TOML (with its line and column), or listing every field that breaks
 * Harbor's model or asks for what Verdict cannot do.
 */
export function parseHarborToml(text: string, file: string): HarborConfigSettings {
  let data: Record<string, unknown>;
  try {
    data = parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    throw new InputError({
      file: `${file}:${error.line}:${error.column}`,
      field: "",
      problem: `not valid TOML: ${
        error.message.split("\n")[0].replace(/^Invalid TOML document: /, "")
      }`,
      fix: "correct the TOML syntax (a key may be set only once)",
    });
  }
  const parsed = HARBOR_CONFIG_SCHEMA.safeParse(data, { reportInput: true });
  const problems: InputProblem[] = parsed.success
    ? []
    : schemaProblems(file, HARBOR_CONFIG_SCHEMA, parsed.error.issues).map(inTomlTerms);
  if (data.version === undefined && data.schema_version === undefined) {
    problems.unshift({
      file,
      field: "schema_version",
      problem: "is missing: a Harbor task.toml declares its schema version",
      fix: 'add schema_version = "1.1" (or version = "1.0") at the top of task.toml',
    });
  }
  if (problems.length > 0 || !parsed.success) throw new InputError(problems);
  const config = parsed.data;
  const environment = config.environment;
  const memoryMb = environment.memory ?? environment.memory_mb;
  const storageMb = environment.storage ?? environment.storage_mb;
  return {
    schemaVersion: (config.schema_version ?? config.version)!,
    environment: {
      dockerfile: null,
      dockerImage: environment.docker_image ?? null,
      buildTimeoutSec: environment.build_timeout_sec,
      ...(environment.cpus === undefined ? {} : { cpus: environment.cpus }),
      ...(memoryMb === undefined ? {} : { memoryMb }),
      ...(storageMb === undefined ? {} : { storageMb }),
    },
    verifier: {
      timeoutSec: config.verifier.timeout_sec,
      env: { ...config.verifier.env },
      user: config.verifier.user ?? "root",
      ...(config.verifier.allowed_hijack_paths === undefined
        ? {}
        : { allowedHijackPaths: config.verifier.allowed_hijack_paths }),
    },
    agentTimeoutSec: config.agent.timeout_sec,
    metadata: plainData({
      ...config.metadata,
      ...(config.task === undefined ? {} : { task: config.task }),
    }) as Record<string, unknown>,
  };
}

/**
 * Loads and validates a Harbor task folder.
 *
 * @example
 * ```ts ignore
 * import { loadHarborTask } from "./harbor_task.ts";
 * const task = await loadHarborTask("harbor-tasks/hello-world");
 * console.log(task.manifest.image, task.harbor?.verifier.timeoutSec);
 * ```
 * @throws {InputError} listing every problem found, each with file, field and fix (exit 2).
 */
export async function loadHarborTask(dir: string): Promise<Task> {
  const file = join(dir, "task.toml");
  const outside = leadOut(dir, "task.toml", "");
  if (outside !== undefined) throw new InputError({ file, field: "", ...outside });
  await refuseBothManifests(dir);
  const problems: InputProblem[] = [];
  let config: HarborConfigSettings | undefined;
  try {
    config = parseHarborToml(await readUtf8File(file), file);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(...error.problems);
  }
  const id = taskId(dir);
  if (id === "") {
    problems.push({
      file: dir,
      field: "",
      problem: `the folder name '${basename(dir)}' has no letter or digit to make the task id of`,
      fix: "rename the folder: a Harbor task's id is its folder name (letters, digits, dashes)",
    });
  }
  const files = await folderProblems(dir, config?.environment.dockerImage ?? null, config);
  problems.push(...files);
  if (problems.length > 0 || config === undefined) throw new InputError(problems);
  const dockerfile = config.environment.dockerImage === null
    ? join(dir, "environment", "Dockerfile")
    : null;
  const harbor: HarborSettings = {
    ...config,
    environment: { ...config.environment, dockerfile },
    solveScript: await isFile(join(dir, "solution", "solve.sh")),
  };
  const image = config.environment.dockerImage ??
    `verdict-harbor/${id}:${(await environmentDigest(join(dir, "environment"))).slice(0, 16)}`;
  return {
    id,
    dir,
    manifest: synthesisedManifest(id, image, config),
    instruction: await readUtf8File(join(dir, "instruction.md")),
    policyPath: "default",
    hasSolution: await isFolder(join(dir, "solution")),
    harbor,
  };
}

// The task id: the folder's name in lowercase, each run of other characters than letters and
// digits a dash, no dash at either end.
function taskId(dir: string): string {
  return basename(dir).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

function synthesisedManifest(id: string, image: string, config: HarborConfigSettings): Manifest {
  const category = config.metadata.category;
  const manifest = MANIFEST_SCHEMA.parse({
    id,
    category: typeof category === "string" && category !== "" ? category : "harbor",
    image,
    network: "none",
    limits: { timeout_s: Math.ceil(config.agentTimeoutSec) },
    policy: "default",
    success: { script: "test.sh", timeout_s: Math.ceil(config.verifier.timeoutSec) },
  });
  // The image's WORKDIR, resolved when the run inspects the image; "/" until then.
  return { ...manifest, workdir: "/", checks: [], requires: {} };
}

async function folderProblems(
  dir: string,
  dockerImage: string | null,
  config: HarborConfigSettings | undefined,
): Promise<InputProblem[]> {
  const problems: InputProblem[] = [];
  const need = async (path: string, kind: "file" | "dir", within: string, fix: string) => {
    const full = join(dir, path);
    const info = await statOrNull(full);
    if (!(kind === "file" ? info?.isFile : info?.isDirectory)) {
      problems.push({
        file: full,
        field: "",
        problem: `${kind === "dir" ? "folder" : "file"} is missing`,
        fix,
      });
      return;
    }
    const outside = leadOut(dir, path, within);
    if (outside !== undefined) problems.push({ file: full, field: "", ...outside });
  };
  await need("instruction.md", "file", "", "write what the agent is told in instruction.md");
  await need("tests", "dir", "", "add a tests/ folder holding test.sh, the verifier");
  if (await isFolder(join(dir, "tests"))) {
    await need(
      join("tests", "test.sh"),
      "file",
      "tests",
      "add tests/test.sh, the verifier Harbor runs as `bash /tests/test.sh`",
    );
  }
  const environment = await statOrNull(join(dir, "environment"));
  if (environment !== null) {
    await need("environment", "dir", "", "make environment/ a folder holding the Dockerfile");
  }
  if (environment?.isDirectory) {
    for (const name of COMPOSE_FILES) {
      if (await statOrNull(join(dir, "environment", name)) === null) continue;
      problems.push({
        file: join(dir, "environment", name),
        field: "",
        problem: "is a Docker Compose file (services beside the task's container); Verdict runs " +
          "one container per trial",
        fix: "fold what the task needs into environment/Dockerfile and remove the Compose " +
          "file, or run this task in Harbor",
      });
    }
  }
  const dockerfile = join("environment", "Dockerfile");
  if (dockerImage === null && await statOrNull(join(dir, dockerfile)) !== null) {
    await need(dockerfile, "file", "environment", "make environment/Dockerfile a file");
  } else if (dockerImage === null && config !== undefined) {
    problems.push({
      file: join(dir, "task.toml"),
      field: "environment.docker_image",
      problem: "is not set, and there is no environment/Dockerfile: the task has no environment",
      fix: "add environment/Dockerfile (built with environment/ as its context), or name a " +
        "local image with [environment].docker_image",
    });
  }
  const solution = await statOrNull(join(dir, "solution"));
  if (solution !== null) await need("solution", "dir", "", "make solution/ a folder, or remove it");
  if (solution?.isDirectory && await statOrNull(join(dir, "solution", "solve.sh")) !== null) {
    await need(join("solution", "solve.sh"), "file", "solution", "make solve.sh a file");
  }
  return problems;
}

// Names the TOML types as a task.toml author knows them.
function inTomlTerms(problem: InputProblem): InputProblem {
  const terms = (text: string) => text.replaceAll("a mapping", "a table");
  return { ...problem, problem: terms(problem.problem), fix: terms(problem.fix) };
}

// sha256 over the environment folder's paths, modes, bytes and link targets: the build context.
async function environmentDigest(folder: string): Promise<string> {
  const entries = (await readTree(folder)).map((entry) =>
    entry.type === "file"
      ? { path: entry.path, mode: entry.mode, sha256: sha256Hex(entry.data) }
      : entry.type === "dir"
      ? { path: entry.path, mode: entry.mode }
      : { path: entry.path, target: entry.target }
  );
  return sha256Hex(`verdict.harbor-environment/1\n${canonicalJson(entries)}`);
}

// TOML values as plain JSON data: tables as plain objects, dates and times as their TOML text.
function plainData(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainData);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainData(item)]));
  }
  return value;
}

async function isFolder(path: string): Promise<boolean> {
  return (await statOrNull(path))?.isDirectory ?? false;
}
