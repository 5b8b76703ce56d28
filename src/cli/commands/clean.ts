/**
 * `verdict clean`: remove what this state folder made and no longer needs: its derived images and
 * the blobs no run refers to; with `--run` or `--keep`, old runs (and then no engine is needed).
 * Never another folder's.
 *
 * @module
 */
import { join } from "node:path";
import { ExitCode, InfrastructureError, UsageError } from "../../core/errors.ts";
import type { Docker } from "../../engine/docker.ts";
import { removeDerivedImages } from "../../engine/remove_derived_images.ts";
import { type BlobCollection, collectGarbage, removeRuns } from "../../eval/run/remove_runs.ts";
import { OWNER_LABEL, stateOwner } from "../../eval/trial/run_owner.ts";
import { runLabel } from "../../report/run_label.ts";
import { newestFirst } from "../../report/run_listing.ts";
import type { RunRecord } from "../../store/run_table.ts";
import { recordedEngines } from "../../store/recorded_engines.ts";
import type { Store } from "../../store/store.ts";
import { type Command, HOME_OPTION, type OptionValues } from "../command.ts";
import type { Io } from "../io.ts";
import { count } from "../option_values.ts";
import { engineDocker } from "../engine_option.ts";
import { dockerFromEnv } from "../runtime.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `clean` command. */
export const cleanCommand: Command = {
  name: "clean",
  summary: "remove this state folder's derived images, or with --run/--keep its old runs",
  args: "",
  options: {
    run: {
      type: "string",
      multiple: true,
      valueName: "RUN",
      description: "remove this run (its record and its folder); repeatable; 'latest' works",
    },
    keep: {
      type: "string",
      valueName: "N",
      description: "remove every run but the newest N",
    },
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: 0 },
  details:
    "Each trial's workspace is baked into a derived image (verdict-derived:…), labelled with the\n" +
    "state folder that made it. clean removes those of --home; an image a container still uses\n" +
    "is left and named, and the next eval that needs one builds it again. Images other state\n" +
    "folders made, and images Verdict did not derive, are never touched. It reaches every\n" +
    "engine the folder's runs used (--engine) as well as the current one.\n\n" +
    "With --run or --keep it removes runs instead (no engine needed): their records, their run\n" +
    "folders, and the stored blobs (workspace snapshots, long messages) no other run refers to.\n" +
    "A run another verdict is working on is refused. Either way, blobs are collected only while\n" +
    "no run of the folder is in progress.",
  async run({ io, values }) {
    const home = resolveHome(values, io);
    const store = openExistingStore(home);
    try {
      const doomed = runsToRemove(store, values);
      const runsDir = join(home, "runs");
      if (doomed === undefined) {
        await cleanImages(io, home, recordedEngines(store));
        io.out(blobsLine(await collectGarbage(store, runsDir)));
        return ExitCode.yes;
      }
      const { blobs } = await removeRuns(store, runsDir, doomed.map((run) => run.id));
      for (const run of doomed) io.out(`removed run ${run.id} (${runLabel(run.config)})\n`);
      if (doomed.length === 0) io.out("no run to remove\n");
      io.out(blobsLine(blobs));
      return ExitCode.yes;
    } finally {
      store.close();
    }
  },
};

function runsToRemove(store: Store, values: OptionValues): RunRecord[] | undefined {
  const named = values.run as string[] | undefined;
  if (named !== undefined && values.keep !== undefined) {
    throw new UsageError("--run and --keep both choose runs to remove: give one (verdict clean)");
  }
  if (named !== undefined) {
    const runs = named.map((id) => findRun(store, id));
    return runs.filter((run, index) => runs.findIndex((other) => other.id === run.id) === index);
  }
  if (values.keep === undefined) return undefined;
  return newestFirst(store.runs.list()).slice(count(values, "keep", 0, 0));
}

// The current engine's, then those of every engine the folder's runs recorded (`--engine`).
async function cleanImages(io: Io, home: string, engines: readonly string[]): Promise<void> {
  const label = `${OWNER_LABEL}=${stateOwner(home)}`;
  const removeOn = async (docker: Docker, where: string) => {
    const { removed, inUse } = await removeDerivedImages(docker, label);
    io.out(`removed ${removed.length} derived image${removed.length === 1 ? "" : "s"} of ${home}`);
    io.out(`${where}\n`);
    if (inUse.length > 0) {
      io.out(`left ${inUse.length} that a container still uses: ${inUse.join(", ")}\n`);
    }
  };
  await removeOn(dockerFromEnv(io), "");
  const unreachable: string[] = [];
  for (const engine of engines) {
    await removeOn(engineDocker(io, engine), ` on ${engine}`).catch((error: Error) => {
      unreachable.push(`${engine} (${error.message.split("\n")[0]})`);
    });
  }
  if (unreachable.length > 0) {
    throw new InfrastructureError(
      `could not reach ${unreachable.join("; ")}: their derived images stay; clean again once ` +
        `they answer`,
    );
  }
}

function blobsLine(blobs: BlobCollection): string {
  if ("keptFor" in blobs) {
    return `kept the stored blobs: run ${blobs.keptFor} is in progress (clean again when it ends)\n`;
  }
  const kib = (blobs.bytes / 1024).toFixed(1);
  return `removed ${blobs.blobs} stored blob${blobs.blobs === 1 ? "" : "s"} (${kib} KiB) no run ` +
    `refers to\n`;
}
