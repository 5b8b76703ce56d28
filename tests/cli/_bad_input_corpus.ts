/**
 * The malformed-input corpus of `tests/fixtures/bad_inputs/`: one YAML file per family of inputs
 * (manifests, policies, gates, prices, flags, state folders, provider responses), each a list of
 * cases. A case writes its bad input into a scratch folder (or damages a copy of a state folder),
 * runs one command, and states the exit code the contract (SPEC section 2) promises for it.
 *
 * Placeholders, expanded in arguments, file contents, symlink targets and expectations:
 * `{case}` the case's scratch folder, `{task}` its copy of the base task (`{case}/task`),
 * `{home}` the state folder (shared, or the case's own copy), `{run}` and `{session}` the
 * reference run made before the corpus and its one trial, `{bench}` the one-task suite
 * `tests/fixtures/bench`, `{provider}` the fake model server's URL, `{outside}` a path outside the
 * project tree.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { parse } from "yaml";
import type { Reply } from "../model/_fake_provider.ts";
import { copyTree, PROJECT_ROOT } from "../_verdict.ts";

/** The corpus folder. */
export const CORPUS_DIR: string = join(PROJECT_ROOT, "tests", "fixtures", "bad_inputs");

/** The valid task every manifest case starts from (a copy, with the case's files on top). */
export const BASE_TASK: string = join(PROJECT_ROOT, "tests", "fixtures", "bench", "trivial");

/** One way a case damages its own copy of the state folder, applied in order. */
export interface Damage {
  /** Keep only this fraction of `verdict.db`'s bytes. */
  truncate?: number;
  /** Overwrite `length` bytes of `verdict.db` with 0xA5 from `offset` (from the end when negative). */
  garbage?: { offset: number; length: number };
  /** Run this SQL on `verdict.db` (through SQLite: the file stays a valid database). */
  sql?: string;
  /** Replace `verdict.db` with a folder of that name. */
  folder?: true;
  /** Replace `verdict.db` with this text (an empty string makes a 0-byte file). */
  text?: string;
  /** Replace a text in a file under the state folder. */
  edit?: { file: string; from: string; to: string };
}

/** One malformed input and what the contract says a command does with it. */
export interface CorpusCase {
  /** Unique within its family; printed as the test step's name. */
  name: string;
  /** The command line, without the program name. */
  args: string[];
  /** The exit code the contract promises (several when the contract leaves a choice). */
  exit: number | number[];
  /** Copies of the base task to make, as folder names under `{case}` (default none). */
  tasks?: string[];
  /** Text files to write, by path under `{case}` (after the copies). */
  files?: Record<string, string>;
  /** Binary files to write, base64 encoded, by path under `{case}`. */
  binary?: Record<string, string>;
  /** Symbolic links to make: path under `{case}` to its target. */
  symlinks?: Record<string, string>;
  /** Paths under `{case}` to remove (after the copies, before the files). */
  remove?: string[];
  /** Folders to make under `{case}`. */
  dirs?: string[];
  /** Folders under `{case}` in which to make a file whose name is not UTF-8 (`odd\xff`). */
  non_utf8_names?: string[];
  /** Texts stderr must contain (compared case-insensitively). */
  stderr?: string[];
  /** Texts stderr must not contain (compared case-insensitively). */
  stderr_not?: string[];
  /** Texts stdout or stderr must contain (compared case-insensitively). */
  output?: string[];
  /** The file an exit-2 message must name; null for none (flags). */
  names?: string | null;
  /** Stderr must be one line. */
  one_line?: boolean;
  /** Run on a copy of the shared state folder (for cases that damage it). */
  own_home?: boolean;
  /** What to damage in that copy. */
  damage?: Damage[];
  /** Files under `{home}` that must keep their bytes. */
  unchanged?: string[];
  /** Paths that must not exist after the command. */
  absent?: string[];
  /** Canned replies of the fake model server; the last one repeats. */
  replies?: Reply[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Run as a real subprocess under the CLI's permission set (for permission cases). */
  subprocess?: boolean;
}

/** A corpus file: a family of cases, and defaults every case starts from. */
export interface CorpusFamily {
  /** The family's name. */
  family: string;
  /** What the family covers. */
  about: string;
  /** How many of its cases may run at once (default 1: one after another). */
  parallel: number;
  /** Fields every case has unless it sets them. */
  defaults: Partial<CorpusCase>;
  /** The cases, with the defaults applied. */
  cases: CorpusCase[];
}

/**
 * Reads one family file and applies its defaults; refuses duplicate case names.
 *
 * @example
 * ```ts
 * import { readFamily } from "./_bad_input_corpus.ts";
 * const flags = await readFamily("flags.yaml");
 * console.assert(flags.cases.length > 0);
 * ```
 */
export async function readFamily(file: string): Promise<CorpusFamily> {
  const raw = parse(await Deno.readTextFile(join(CORPUS_DIR, file))) as {
    family: string;
    about: string;
    parallel?: number;
    defaults?: Partial<CorpusCase>;
    cases: Partial<CorpusCase>[];
  };
  const defaults = raw.defaults ?? {};
  const cases = raw.cases.map((item) => ({ ...defaults, ...item }) as CorpusCase);
  const names = new Set<string>();
  for (const item of cases) {
    if (!item.name || !item.args || item.exit === undefined) {
      throw new Error(`${file}: a case lacks name, args or exit: ${JSON.stringify(item)}`);
    }
    if (names.has(item.name)) throw new Error(`${file}: two cases are named '${item.name}'`);
    names.add(item.name);
  }
  return { family: raw.family, about: raw.about, parallel: raw.parallel ?? 1, defaults, cases };
}

/**
 * Replaces every `{name}` placeholder the values know; unknown ones are left as written.
 *
 * @example
 * ```ts
 * import { expand } from "./_bad_input_corpus.ts";
 * console.assert(expand("{case}/task.yaml", { case: "/c" }) === "/c/task.yaml");
 * ```
 */
export function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\{([a-z]+)\}/g, (all, name: string) => values[name] ?? all);
}

/**
 * Builds a case's scratch folder: copies of the base task, removals, folders, files, binary
 * files, symlinks and names that are not UTF-8.
 *
 * @example
 * ```ts
 * import { prepareCase } from "./_bad_input_corpus.ts";
 * await prepareCase({ name: "x", args: [], exit: 2, files: { "a.txt": "hi" } }, { case: "/tmp/c" });
 * ```
 */
export async function prepareCase(
  item: CorpusCase,
  values: Record<string, string>,
): Promise<void> {
  const root = values.case;
  for (const name of item.tasks ?? []) await copyTree(BASE_TASK, join(root, name));
  for (const path of item.remove ?? []) await Deno.remove(join(root, path), { recursive: true });
  for (const path of item.dirs ?? []) await Deno.mkdir(join(root, path), { recursive: true });
  for (const [path, text] of Object.entries(item.files ?? {})) {
    await writeMaking(join(root, path), new TextEncoder().encode(expand(text, values)));
  }
  for (const [path, base64] of Object.entries(item.binary ?? {})) {
    await writeMaking(join(root, path), Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  }
  for (const [path, target] of Object.entries(item.symlinks ?? {})) {
    await Deno.remove(join(root, path), { recursive: true }).catch(() => {});
    await Deno.symlink(expand(target, values), join(root, path));
  }
  for (const folder of item.non_utf8_names ?? []) await makeNonUtf8Name(join(root, folder));
}

async function writeMaking(path: string, bytes: Uint8Array): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeFile(path, bytes);
}

/**
 * Deno's file API takes names as UTF-8 strings, so a name that is not UTF-8 is made by a shell in
 * a throwaway container with the folder bind-mounted.
 */
async function makeNonUtf8Name(folder: string): Promise<void> {
  await Deno.mkdir(folder, { recursive: true });
  const output = await new Deno.Command("docker", {
    args: [
      "run",
      "--rm",
      "--network",
      "none",
      "-v",
      `${folder}:/w`,
      "verdict/busybox",
      "sh",
      "-c",
      `echo odd > "/w/$(printf 'odd\\377')"`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`could not make a non-UTF-8 name: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/**
 * Applies a case's damage to its copy of the state folder.
 *
 * @example
 * ```ts
 * import { damageHome } from "./_bad_input_corpus.ts";
 * await damageHome("tests/.artifacts/some-home", [{ text: "" }], {});
 * ```
 */
export async function damageHome(
  home: string,
  damage: readonly Damage[],
  values: Record<string, string>,
): Promise<void> {
  const db = join(home, "verdict.db");
  for (const step of damage) {
    if (step.truncate !== undefined) {
      const size = (await Deno.stat(db)).size;
      await Deno.truncate(db, Math.floor(size * step.truncate));
    }
    if (step.garbage !== undefined) {
      const file = await Deno.open(db, { read: true, write: true });
      try {
        const { offset } = step.garbage;
        await file.seek(offset, offset < 0 ? Deno.SeekMode.End : Deno.SeekMode.Start);
        await file.write(new Uint8Array(step.garbage.length).fill(0xa5));
      } finally {
        file.close();
      }
    }
    if (step.sql !== undefined) {
      const connection = new DatabaseSync(db);
      try {
        connection.exec(expand(step.sql, values));
      } finally {
        connection.close();
      }
    }
    if (step.folder) {
      await Deno.remove(db);
      await Deno.mkdir(db);
    }
    if (step.text !== undefined) await Deno.writeTextFile(db, step.text);
    if (step.edit !== undefined) {
      const path = join(home, expand(step.edit.file, values));
      const text = await Deno.readTextFile(path);
      const edited = text.replace(step.edit.from, step.edit.to);
      if (edited === text) throw new Error(`damage: '${step.edit.from}' is not in ${path}`);
      await Deno.writeTextFile(path, edited);
    }
  }
}

/**
 * The entries of a state folder's `runs/` (empty when there is none), to show that a refused
 * input left no run folder behind.
 *
 * @example
 * ```ts
 * import { runFolders } from "./_bad_input_corpus.ts";
 * console.assert(Array.isArray(await runFolders("tests/.artifacts/none")));
 * ```
 */
export async function runFolders(home: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(home, "runs"))) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}
