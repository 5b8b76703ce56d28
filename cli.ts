/**
 * The `verdict` command: parses the process's arguments and hands them to the library.
 *
 * @module
 */
import { denoIo } from "./src/cli/io.ts";
import { runCli } from "./src/cli/main.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, denoIo()));
}
