/**
 * Loading one task folder: parse `task.yaml` strictly, check that every file it names exists
 * inside the folder (a symlink that leads out of it is refused: its text would reach the agent or
 * the grader), and report every problem at once, each naming the file, the field and the fix
 * (exit 2).
 *
 * @module
 */
import { join } from "node:path";
import { InputError, type InputProblem } from "../core/errors.ts";
import { readUtf8File } from "../core/input_file.ts";
import { nearest } from "../core/suggest.ts";
import { fieldPath, schemaProblems } from "../core/schema_problems.ts";
import {
  CHECK_SCHEMAS,
  type CheckKind,
  type CheckSpec,
  type Manifest,
  MANIFEST_SCHEMA,
  REQUIRES_SCHEMA,
} from "./manifest.ts";
import type { Task } from "./task.ts";
import { leadOut } from "./_lead_out.ts";
import { isFile, refuseBothManifests, statOrNull } from "./_manifest_files.ts";
import { parseYamlInput } from "../core/yaml_input.ts";

/**
 * Whether a folder is a task folder: it holds a `task.yaml` (a Verdict task) or a `task.toml` (a
 * Harbor task).
 *
 * @example
 * ```ts
 * import { isTaskFolder } from "./load_task.ts";
 * console.log(await isTaskFolder("tasks/fix-slugify"));
 * ```
 */
export async function isTaskFolder(dir: string): Promise<boolean> {
  return await isFile(join(dir, "task.yaml")) || await isFile(join(dir, "task.toml"));
}

/**
 * Loads and validates a task folder.
 *
 * @example
 * ```ts
 * import { loadTask } from "./load_task.ts";
 * const task = await loadTask("tasks/fix-slugify");
 * console.log(task.manifest.image);
 * ```
 * @throws {InputError} listing every problem found, each with file, field and fix (exit 2).
 */
export async function loadTask(dir: string): Promise<Task> {
  const file = join(dir, "task.yaml");
  const outside = leadOut(dir, "task.yaml", "");
  if (outside !== undefined) throw new InputError({ file, field: "", ...outside });
  await refuseBothManifests(dir);
  const text = await readTextOrNull(file);
  if (text === null) {
    throw new InputError({
      file,
      field: "",
      problem: "no task.yaml here",
      fix: "point at a task folder (one holding task.yaml) or a folder of task folders",
    });
  }
  const manifest = parseManifest(text, file);
  const problems = await fileProblems(dir, manifest);
  if (problems.length > 0) throw new InputError(problems);
  return {
    id: manifest.id,
    dir,
    manifest,
    instruction: (await readTextOrNull(join(dir, "instruction.md")))!,
    policyPath: manifest.policy === "default" ? "default" : join(dir, manifest.policy),
    hasSolution: (await statOrNull(join(dir, "solution")))?.isDirectory ?? false,
  };
}

/**
 * Parses and validates manifest text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseManifest } from "./load_task.ts";
 * const manifest = parseManifest(
 *   "id: a\ncategory: fix\nimage: verdict/busybox\nsuccess: { script: test.sh }\n",
 *   "task.yaml",
 * );
 * assert(manifest.workdir === "/workspace" && manifest.limits.max_steps === 30);
 * ```
 * @throws {InputError} on bad YAML or a manifest that breaks the schema.
 */
export function parseManifest(text: string, file: string): Manifest {
  const data = parseYamlInput(text, file);
  const parsed = MANIFEST_SCHEMA.safeParse(data, { reportInput: true });
  const problems: InputProblem[] = parsed.success
    ? []
    : schemaProblems(file, MANIFEST_SCHEMA, parsed.error.issues);
  const rawChecks = (data as { checks?: unknown } | null)?.checks;
  const checks = Array.isArray(rawChecks) ? parseChecks(rawChecks, file, problems) : [];
  const rawRequires = (data as { requires?: unknown } | null)?.requires;
  if (problems.length > 0 || !parsed.success) throw new InputError(problems);
  return {
    ...parsed.data,
    checks,
    requires: rawRequires === undefined ? {} : REQUIRES_SCHEMA.parse(rawRequires),
  };
}

function parseChecks(raw: unknown[], file: string, problems: InputProblem[]): CheckSpec[] {
  const kinds = Object.keys(CHECK_SCHEMAS) as CheckKind[];
  const checks: CheckSpec[] = [];
  raw.forEach((item, index) => {
    const keys = item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.keys(item)
      : [];
    if (keys.length !== 1) {
      problems.push({
        file,
        field: fieldPath(["checks", index]),
        problem: "a check must be a mapping with exactly one key, the check's kind",
        fix: `write it as '- KIND: ARGUMENT'; kinds: ${kinds.join(", ")}`,
      });
      return;
    }
    const kind = keys[0];
    if (!(kind in CHECK_SCHEMAS)) {
      const guess = nearest(kind, kinds);
      problems.push({
        file,
        field: fieldPath(["checks", index, kind]),
        problem: "unknown check",
        fix: guess ? `did you mean '${guess}'?` : `use one of: ${kinds.join(", ")}`,
      });
      return;
    }
    const schema = CHECK_SCHEMAS[kind as CheckKind];
    const parsed = schema.safeParse((item as Record<string, unknown>)[kind], { reportInput: true });
    if (parsed.success) checks.push({ kind, args: parsed.data } as CheckSpec);
    else {problems.push(
        ...schemaProblems(file, schema, parsed.error.issues, ["checks", index, kind]),
      );}
  });
  return checks;
}

async function fileProblems(dir: string, manifest: Manifest): Promise<InputProblem[]> {
  const problems: InputProblem[] = [];
  const file = join(dir, "task.yaml");
  const need = async (
    path: string,
    kind: "file" | "dir",
    field: string,
    fix: string,
    within: string | null = "",
  ) => {
    const info = await statOrNull(join(dir, path));
    const ok = kind === "file" ? info?.isFile : info?.isDirectory;
    const where = { file: field ? file : join(dir, path), field };
    if (!ok) {
      problems.push({
        ...where,
        problem: field
          ? `names ${path}, which does not exist`
          : `${kind === "dir" ? "folder" : "file"} is missing`,
        fix,
      });
      return;
    }
    const outside = within === null ? undefined : leadOut(dir, path, within);
    if (outside !== undefined) {
      const problem = field ? `names ${path}, which ${outside.problem}` : outside.problem;
      problems.push({ ...where, problem, fix: outside.fix });
    }
  };
  await need("instruction.md", "file", "", "write what the agent is told in instruction.md");
  await need("workspace", "dir", "", "add a workspace/ folder (it may be empty)");
  await need("tests", "dir", "", "add a tests/ folder holding the success script");
  if (await statOrNull(join(dir, "solution")) !== null) {
    await need("solution", "dir", "", "make solution/ a folder, or remove it");
  }
  await need(
    join("tests", manifest.success.script),
    "file",
    "success.script",
    `add the script to tests/ or name an existing one (relative to tests/)`,
    "tests",
  );
  if (manifest.success.canary !== undefined) {
    await need(
      join("tests", manifest.success.canary),
      "file",
      "success.canary",
      "add the canary script to tests/ or remove success.canary",
      "tests",
    );
  }
  if (manifest.policy !== "default") {
    await need(
      manifest.policy,
      "file",
      "policy",
      "write the policy file, or use 'policy: default'",
      null, // a shared policy may live outside the task folder; reading it checks where it leads
    );
  }
  for (const [index, doc] of (manifest.docs ?? []).entries()) {
    await need(doc, "file", `docs[${index}]`, "add the page under the task folder, or remove it");
  }
  return problems;
}

async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readUtf8File(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return null;
    }
    throw error;
  }
}
