import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { requireDocker } from "../_docker.ts";
import { writeRun } from "../_synthetic_runs.ts";
import { type CliResult, runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const RUN = "aaaa1111aaaa";

/** A state directory with one finished run of two trials, its database checkpointed to one file. */
async function home(path: string): Promise<string> {
  await writeRun(path, RUN, [["add", 0, "pass"], ["fix", 0, "fail"]]);
  return join(path, "verdict.db");
}

/** Overwrites one database page with bytes that no SQLite page starts with. */
async function garblePage(db: string, page: number): Promise<void> {
  const file = await Deno.open(db, { write: true });
  await file.seek((page - 1) * 4096, Deno.SeekMode.Start);
  await file.write(new TextEncoder().encode("garbage!".repeat(512)));
  file.close();
}

function rootPage(db: string, name: string): number {
  const connection = new DatabaseSync(db, { readOnly: true });
  const row = connection.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(name);
  connection.close();
  return (row as { rootpage: number }).rootpage;
}

/** Every command that reads a state directory, with arguments naming the synthetic run. */
const READ_COMMANDS = [
  ["verify", RUN],
  ["stats", RUN],
  ["show", `${RUN}-add-0`],
  ["report", RUN],
  ["replay", RUN],
  ["compare", RUN, RUN],
  ["resume", RUN],
];

const DAMAGES: Record<string, (db: string) => Promise<void>> = {
  "a truncated file": async (db) => await Deno.truncate(db, (await Deno.stat(db)).size / 2),
  "a garbage header": async (db) => {
    const bytes = await Deno.readFile(db);
    bytes.set(new TextEncoder().encode("this is no SQLite file"), 0);
    await Deno.writeFile(db, bytes);
  },
  "garbage pages": async (db) => {
    for (const table of ["runs", "sessions", "events"]) await garblePage(db, rootPage(db, table));
  },
  "a folder in its place": async (db) => {
    await Deno.remove(db);
    await Deno.mkdir(db);
  },
};

function assertDamaged(result: CliResult, db: string, command: string): void {
  const said = result.stdout + result.stderr;
  assert.equal(result.code, 1, `${command}: ${said}`);
  assert.doesNotMatch(said, /internal error|SyntaxError|\n {4}at /, command);
  assert.ok(said.includes(`the state database ${db} is damaged`), `${command}: ${said}`);
  if (command !== "verify") assert.match(said, /run 'verdict verify RUN'/, command);
}

for (const [damage, inflict] of Object.entries(DAMAGES)) {
  Deno.test(`${damage} as verdict.db: every command says it is damaged and to run verify (exit 1)`, async () => {
    await using dir = await scratchDir("damaged");
    const db = await home(dir.path);
    await inflict(db);
    const results = await Promise.all(
      READ_COMMANDS.map((args) => runVerdict([...args, "--home", dir.path])),
    );
    results.forEach((result, index) => assertDamaged(result, db, READ_COMMANDS[index][0]));
  });
}

Deno.test("verify lists what SQLite's page check finds in a damaged index, exit 1", async () => {
  await using dir = await scratchDir("damaged");
  const db = await home(dir.path);
  const page = rootPage(db, "sqlite_autoindex_sessions_2");
  await garblePage(db, page);
  const verify = await runVerdictInProcess(["verify", RUN, "--home", dir.path]);
  assert.equal(verify.code, 1, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /is damaged; SQLite finds:\n/);
  assert.match(verify.stdout, new RegExp(`page ${page}`));
  assert.match(verify.stdout, /Fix: restore .*verdict\.db from a backup/);
  const json = JSON.parse(
    (await runVerdictInProcess(["verify", RUN, "--json", "--home", dir.path])).stdout,
  );
  assert.equal(json.intact, false);
  assert.equal(json.database.path, db);
  assert.ok(json.database.problems.length > 0);
});

Deno.test("an empty or missing verdict.db beside run folders is refused, naming the file and the fix", async () => {
  await using dir = await scratchDir("damaged");
  const db = await home(dir.path);
  await Deno.mkdir(join(dir.path, "runs", RUN));
  for (const state of ["empty", "missing"]) {
    if (state === "empty") await Deno.writeFile(db, new Uint8Array());
    else await Deno.remove(db);
    const stats = await runVerdictInProcess(["stats", RUN, "--home", dir.path]);
    assert.equal(stats.code, 1, stats.stderr);
    assert.ok(
      stats.stderr.includes(
        `the state database ${db} is damaged: it is ${
          state === "empty" ? "empty (0 bytes)" : "missing"
        }, yet ${join(dir.path, "runs")} holds 1 run folder (${RUN})`,
      ),
      stats.stderr,
    );
    assert.match(stats.stderr, /Fix: restore .*verdict\.db from a backup, or move .*runs aside/);
  }
  await assert.rejects(Deno.stat(db), Deno.errors.NotFound, "nothing was created");
});

Deno.test("a rerun over a 0-byte verdict.db refuses and leaves the earlier results.json alone", async () => {
  await requireDocker();
  await using dir = await scratchDir("damaged");
  const args = ["eval", "tasks/fix-slugify", "--agent", "oracle", "--home", dir.path];
  const first = await runVerdict(args);
  assert.equal(first.code, 0, first.stderr);
  const run = /^run (\w+)/.exec(first.stdout)![1];
  const resultsFile = join(dir.path, "runs", run, "results.json");
  const earlier = await Deno.readTextFile(resultsFile);
  const db = join(dir.path, "verdict.db");
  await Deno.writeFile(db, new Uint8Array());
  for (const suffix of ["-wal", "-shm"]) await Deno.remove(db + suffix).catch(() => {});

  const again = await runVerdict(args);
  assert.equal(again.code, 1, again.stdout + again.stderr);
  assert.match(again.stderr, /verdict\.db is damaged: it is empty \(0 bytes\)/);
  assert.equal(await Deno.readTextFile(resultsFile), earlier, "the earlier record is untouched");
  assert.equal((await Deno.stat(db)).size, 0);
});

Deno.test("--home or VERDICT_HOME naming a file is bad usage (exit 2) with the fix", async () => {
  await using dir = await scratchDir("damaged");
  const file = join(dir.path, "not-a-folder");
  await Deno.writeTextFile(file, "x");
  const cases = [
    runVerdictInProcess(["stats", RUN, "--home", file]),
    runVerdictInProcess(["verify", RUN, "--home", join(file, "below")]),
    runVerdict(["eval", "tasks/fix-slugify", "--home", file]),
    runVerdict(["stats", RUN], { env: { VERDICT_HOME: file } }),
  ];
  for (const result of await Promise.all(cases)) {
    assert.equal(result.code, 2, result.stderr);
    assert.doesNotMatch(result.stderr, /internal error/);
    assert.match(result.stderr, /(--home|VERDICT_HOME) .*not-a-folder.* is not a folder/);
    assert.match(result.stderr, /point --home \(or VERDICT_HOME\) at a folder/);
  }
});
