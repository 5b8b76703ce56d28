/**
 * `verdict merge RUN...`: join the shard runs of one experiment (`verdict eval --shard K/N`, made
 * in state folders copied here from other machines) into the run an unsharded eval makes, in the
 * state folder `--home`. A RUN names a shard by a folder: its run folder (`STATE/runs/ID`, whose
 * `STATE/verdict.db` holds it) or its state folder (`STATE`, when that holds only the one run).
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { ExitCode, UsageError } from "../../core/errors.ts";
import { mergeShards, type ShardSource } from "../../eval/run/merge_shards.ts";
import { openStore, type Store } from "../../store/store.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { databasePath, resolveHome } from "../state.ts";
import { publicKeysOption } from "../public_key_option.ts";
import { signingKeyFor } from "../signing_key.ts";
import { printSummary } from "./_run_summary.ts";
import { statOrNull } from "../_stat_or_null.ts";

/** The `merge` command. */
export const mergeCommand: Command = {
  name: "merge",
  summary: "join the shard runs of one experiment (eval --shard K/N) into the unsharded run",
  args: "RUN...",
  options: {
    trust: {
      type: "string",
      multiple: true,
      valueName: "PUB",
      description: "take only shards signed by this public key (repeatable)",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: Infinity },
  details:
    "A RUN is a shard's run folder (STATE/runs/ID) or its state folder (STATE, holding one run),\n" +
    "such as a .verdict/ folder copied from another machine. Every shard 1..N must be given, each\n" +
    "once, finished, of one experiment; the merged run gets the experiment's run id in --home,\n" +
    "which must not hold that run yet. The merged run keeps each shard's signer and is signed\n" +
    "with this process's key (VERDICT_SIGNING_KEY, or your key file), so 'verify --key' can ask\n" +
    "for trusted signers throughout. Exits 0 when merged, 2 when the shards are refused, 1 when\n" +
    "a shard was changed after it was signed or, with --trust, is not signed by a trusted key.",
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const trust = publicKeysOption(values, "trust");
    const signingKey = await signingKeyFor(io);
    const stores: Store[] = [];
    try {
      const sources = positionals.map((argument) => shardSource(argument, stores));
      const open = () => {
        Deno.mkdirSync(home, { recursive: true });
        const target = openStore(databasePath(home));
        stores.push(target);
        return target;
      };
      const merged = await mergeShards(sources, home, open, {
        ...(trust ? { trust } : {}),
        ...(signingKey ? { signingKey } : {}),
      });
      const json = values.json === true;
      const write = json ? io.err : io.out;
      write(
        `merged ${merged.shards} shard${
          merged.shards === 1 ? "" : "s"
        } into run ${merged.run.id} ` +
          `in ${home} (${merged.copied.events} events, ${merged.copied.blobs} blobs copied)\n`,
      );
      printSummary(write, { ...merged, interrupted: false });
      if (json) io.out(JSON.stringify(merged.results, null, 2) + "\n");
      return ExitCode.yes;
    } finally {
      for (const store of stores) store.close();
    }
  },
};

// Resolves one RUN argument to its shard run, opening its state database (kept in `stores`).
function shardSource(argument: string, stores: Store[]): ShardSource {
  requireReadable(argument);
  if (!isFolder(argument)) {
    throw new UsageError(
      `${argument}, given as a shard, is not a folder: name a shard's run folder (STATE/runs/ID) ` +
        `or its state folder (STATE, the folder that holds verdict.db)`,
    );
  }
  if (isFile(databasePath(argument))) {
    const store = open(argument, stores, argument);
    const runs = store.runs.list();
    if (runs.length !== 1) {
      const folders = runs.map((run) => join(argument, "runs", run.id));
      throw new UsageError(
        `${argument}, given as a shard, is a state folder with ${runs.length} runs: name the ` +
          `shard's run folder instead${runs.length > 0 ? `: one of ${folders.join(", ")}` : ""}`,
      );
    }
    return {
      argument,
      store,
      run: runs[0],
      runDir: join(argument, "runs", runs[0].id),
      home: argument,
    };
  }
  const home = dirname(dirname(resolve(argument)));
  if (basename(dirname(resolve(argument))) !== "runs" || !isFile(databasePath(home))) {
    throw new UsageError(
      `${argument}, given as a shard, is neither a run folder (STATE/runs/ID, beside ` +
        `STATE/verdict.db) nor a state folder (holding verdict.db): copy the shard's whole state ` +
        `folder and name it, or its run folder`,
    );
  }
  const store = open(home, stores, argument);
  const id = basename(resolve(argument));
  const run = store.runs.get(id);
  if (run === undefined) {
    throw new UsageError(
      `${argument}, given as a shard, names run ${id}, which ${databasePath(home)} does not ` +
        `hold: name a run folder of a run that state folder recorded`,
    );
  }
  return { argument, store, run, runDir: argument, home };
}

function open(home: string, stores: Store[], argument: string): Store {
  requireSqlite(databasePath(home), argument);
  const store = openStore(databasePath(home));
  stores.push(store);
  return store;
}

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = new TextEncoder().encode("SQLite format 3\0");

/**
 * A shard's database must be one (exit 2 when it is not: a wrong or half-copied file, not a
 * damaged record); opening it otherwise would make an empty one of a zero-byte file.
 */
function requireSqlite(path: string, argument: string): void {
  const file = Deno.openSync(path, { read: true });
  const head = new Uint8Array(SQLITE_HEADER.length);
  let read = 0;
  try {
    read = file.readSync(head) ?? 0;
  } finally {
    file.close();
  }
  if (read === SQLITE_HEADER.length && head.every((byte, index) => byte === SQLITE_HEADER[index])) {
    return;
  }
  throw new UsageError(
    `${argument}, given as a shard: ${path} is not a SQLite database (${
      read === 0 ? "it is empty" : "its first bytes are not SQLite's"
    }). Fix: copy the shard's state folder again, verdict.db whole`,
  );
}

function requireReadable(argument: string): void {
  for (const name of ["read", "write"] as const) {
    if (Deno.permissions.querySync({ name, path: argument }).state !== "granted") {
      throw new UsageError(
        `cannot ${name} ${argument}, given as a shard: verdict reads and writes only inside the ` +
          `folder it runs from, ${Deno.cwd()}. Fix: copy the shard's state folder into it`,
      );
    }
  }
}

function isFolder(path: string): boolean {
  return statOrNull(path)?.isDirectory === true;
}

function isFile(path: string): boolean {
  return statOrNull(path)?.isFile === true;
}
