/**
 * `verdict view [RUN]`: the local web viewer over the state folder, read-only, on 127.0.0.1 with a
 * token it prints; or, with `--bundle DIR`, one run written as a static page for a CI artifact.
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemSecret } from "../../core/system_clock.ts";
import { openStore, type Store } from "../../store/store.ts";
import { writeViewerBundle } from "../../view/viewer_bundle.ts";
import { startViewer } from "../../view/viewer_server.ts";
import { statOrNull } from "../_stat_or_null.ts";
import { type Command, HOME_OPTION } from "../command.ts";
import type { Io } from "../io.ts";
import { count, stringOption } from "../option_values.ts";
import { databasePath, findRun, LATEST, openExistingStore, resolveHome } from "../state.ts";

/** The `view` command. */
export const viewCommand: Command = {
  name: "view",
  summary: "browse runs and trials in a local web viewer (or write one run as a static page)",
  args: "[RUN]",
  options: {
    port: {
      type: "string",
      valueName: "N",
      description: "the port on 127.0.0.1 (default: a free one)",
    },
    bundle: {
      type: "string",
      valueName: "DIR",
      description:
        "write RUN (default latest) as DIR/index.html, a page that opens from disk, and exit",
      path: "write-folder",
    },
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: 1 },
  details:
    "The viewer reads the state folder and never writes it. It listens on 127.0.0.1 only, answers\n" +
    "only requests that name it so (Host), and asks for the token in the address it prints:\n" +
    "open that address. A run in progress fills in as its trials finish. Ctrl-C stops it.",
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const port = count(values, "port", 0, 0);
    if (port > 65535) throw new UsageError(`--port ${port} is not a port: give 1-65535, or 0`);
    // Opened once to upgrade an older database; from then on, only read.
    openExistingStore(home).close();
    const store = openStore(databasePath(home), { readOnly: true });
    try {
      const bundle = stringOption(values, "bundle");
      if (bundle !== undefined) {
        if (statOrNull(bundle)?.isDirectory === false) {
          throw new UsageError(
            `--bundle ${bundle} is a file, not a folder. Fix: give the folder index.html goes in`,
          );
        }
        const run = findRun(store, positionals[0] ?? LATEST);
        const page = await writeViewerBundle(store, run.id, bundle);
        io.out(`wrote ${page}: run ${run.id}, opens from disk with no server\n`);
        return ExitCode.yes;
      }
      const start = positionals[0] === undefined
        ? ""
        : `#/run/${findRun(store, positionals[0]).id}`;
      return await serve(io, store, port, start);
    } finally {
      store.close();
    }
  },
};

async function serve(
  io: Io,
  store: Store,
  port: number,
  start: string,
): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  let viewer;
  try {
    viewer = startViewer({ store, token: systemSecret(), port, signal: controller.signal });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new UsageError(`--port ${port} is in use on 127.0.0.1: give another, or leave it out`);
  }
  const signals = ["SIGINT", "SIGTERM"] as const;
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  io.stdoutClosed?.addEventListener("abort", stop, { once: true });
  try {
    io.out(`Verdict viewer of ${store.path}: open ${viewer.url}${start}\n(Ctrl-C stops it)\n`);
    await viewer.finished;
    return ExitCode.yes;
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
    io.stdoutClosed?.removeEventListener("abort", stop);
  }
}
