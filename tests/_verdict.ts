/**
 * Test helpers: scratch folders inside the project (the CLI's permission set only reaches the
 * project tree) and the CLI run as a real subprocess under the exact permission set of
 * `deno task verdict` and `deno compile`.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root. */
export const PROJECT_ROOT: string = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where tests keep scratch files (git-ignored). */
export const ARTIFACTS: string = join(PROJECT_ROOT, "tests", ".artifacts");

/** A fresh scratch folder under `tests/.artifacts/`, removed with `await using`. */
export async function scratchDir(
  prefix = "t",
): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const path = await Deno.makeTempDir({ dir: ARTIFACTS, prefix: `${prefix}-` });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** What a CLI run printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@linkcode runVerdict}. */
export interface RunVerdictOptions {
  /** Extra environment variables (the child's environment is otherwise only PATH and HOME). */
  env?: Record<string, string>;
  /** Working directory; default the project root. */
  cwd?: string;
  /** Aborts the child. */
  signal?: AbortSignal;
  /**
   * Paths the child may not read on top of its permission set, to provoke a refusal that only
   * shows while a command works.
   */
  denyRead?: string[];
}

/** Runs `deno run -P=verdict cli.ts ARGS`, the same command `deno task verdict` runs. */
export async function runVerdict(
  args: string[],
  options: RunVerdictOptions = {},
): Promise<CliResult> {
  const output = await verdictCommand(args, options).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: withoutDenoWarnings(new TextDecoder().decode(output.stderr)),
  };
}

/** The `Deno.Command` behind {@linkcode runVerdict}, for tests that need the live process. */
export function verdictCommand(args: string[], options: RunVerdictOptions = {}): Deno.Command {
  return new Deno.Command("deno", {
    args: [
      "run",
      "-P=verdict",
      "--quiet",
      ...(options.denyRead ? [`--deny-read=${options.denyRead.join(",")}`] : []),
      join(PROJECT_ROOT, "cli.ts"),
      ...args,
    ],
    cwd: options.cwd ?? PROJECT_ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      NO_COLOR: "1",
      ...options.env,
    },
    stdout: "piped",
    stderr: "piped",
    signal: options.signal,
  });
}

/**
 * Copies a file or a folder tree (for tests that need a modified copy of the project).
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.lstat(from);
  if (info.isDirectory) {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      await copyTree(join(from, entry.name), join(to, entry.name));
    }
  } else if (info.isFile) {
    await Deno.copyFile(from, to);
  }
}

function withoutDenoWarnings(text: string): string {
  return text.split("\n").filter((line) => !line.includes("experimental feature")).join("\n");
}
