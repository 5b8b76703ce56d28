/**
 * Reading a file the user named on the command line, with the error a user can act on.
 *
 * @module
 */
import { InputError } from "./errors.ts";
import { escapedTarget } from "./link_target.ts";

/**
 * Reads a user-named text file. A missing path, a folder, or a symlink that leads where Verdict may
 * not read (Deno checks the path as written, so the link would otherwise be followed out of the
 * permitted tree) is an {@linkcode InputError} (exit 2) that names the file and says what it was
 * meant to be.
 *
 * @param path The path as the user gave it.
 * @param what What the file is, for the message: `"gate"` gives "the gate file does not exist".
 * @param fix What to do when it is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readInputFile } from "./input_file.ts";
 * const text = await readInputFile("deno.json", "configuration");
 * assert(text.startsWith("{"));
 * ```
 */
export async function readInputFile(
  path: string,
  what: string,
  fix = "check the path",
): Promise<string> {
  const target = readableTarget(path, what);
  if (target !== undefined) {
    throw new InputError({
      file: path,
      field: "",
      problem: `the ${what} file is a symlink that leads to ${target}, where Verdict may not read`,
      fix: `give the ${what} file itself, inside the folder Verdict is run from`,
    });
  }
  try {
    return await readUtf8File(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new InputError({
        file: path,
        field: "",
        problem: `the ${what} file does not exist`,
        fix,
      });
    }
    if (error instanceof Deno.errors.IsADirectory) {
      throw new InputError({
        file: path,
        field: "",
        problem: `the ${what} file is a folder`,
        fix: `name the ${what} file itself`,
      });
    }
    throw error;
  }
}

/**
 * Reads a text file that must be UTF-8: a file that is not (a binary, or text in another
 * encoding) is an {@linkcode InputError} naming it, instead of text with replacement characters
 * that would reach a model or a parser silently changed.
 *
 * @throws {Deno.errors.NotFound} and the other errors of `Deno.readFile`, unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readUtf8File } from "./input_file.ts";
 * const text = await readUtf8File("deno.json");
 * assert(text.startsWith("{"));
 * ```
 */
export async function readUtf8File(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InputError({
      file: path,
      field: "",
      problem: "the file is not valid UTF-8 text",
      fix: "save it as UTF-8",
    });
  }
}

function readableTarget(path: string, what: string): string | undefined {
  try {
    return escapedTarget(path, "read");
  } catch (error) {
    if (!(error instanceof Deno.errors.FilesystemLoop)) throw error;
    throw new InputError({
      file: path,
      field: "",
      problem: `the ${what} file's symlinks form a loop`,
      fix: `give the ${what} file itself`,
    });
  }
}
