/**
 * The malformed-input corpus (tests/fixtures/bad_inputs/, see `_bad_input_corpus.ts`): every case
 * exits as the contract says, never with an internal error; an exit-2 message names the bad file;
 * a refused input leaves no run folder behind; and a run finished before the corpus still
 * verifies after each family.
 *
 * Cases run in-process through `runCli` (a few that depend on the permission set run as real
 * subprocesses), so the corpus takes seconds, not minutes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/main.ts";
import type { Results } from "../../src/report/results.ts";
import { fakeProvider } from "../model/_fake_provider.ts";
import { requireDocker } from "../_docker.ts";
import { type CliResult, copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";
import {
  type CorpusCase,
  damageHome,
  expand,
  prepareCase,
  readFamily,
  runFolders,
} from "./_bad_input_corpus.ts";

const FAMILIES = [
  "manifests.yaml",
  "policies.yaml",
  "gates.yaml",
  "prices.yaml",
  "flags.yaml",
  "state.yaml",
  "providers.yaml",
];

/** Longer than any case should take (a provider case retries with real backoff). */
const CASE_TIMEOUT_MS = 90_000;

/** The contract's exit code for bad usage or input. */
const USAGE = 2;

interface Reference {
  home: string;
  run: string;
  session: string;
}

interface Failure {
  family: string;
  name: string;
  command: string;
  expected: string;
  actual: number;
  stderr: string;
  problems: string[];
}

Deno.test({
  name: "the bad-input corpus: each exit as the contract says, never an internal error",
  // In-process evals start docker subprocesses and timers that outlive a step's bookkeeping.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await requireDocker();
    await using root = await scratchDir("corpus");
    const outside = await Deno.makeTempDir({ prefix: "verdict-corpus-outside-" });
    const reference = await makeReference(join(root.path, "home"));
    const failures: Failure[] = [];
    let total = 0;
    const started = performance.now();
    try {
      for (const file of FAMILIES) {
        const family = await readFamily(file);
        await t.step(family.family, async (t) => {
          const steps = family.cases.map((item, index) => ({
            name: item.name,
            // Steps may only overlap when none of them sanitizes.
            sanitizeOps: false,
            sanitizeResources: false,
            sanitizeExit: false,
            fn: async () => {
              total++;
              const caseDir = join(root.path, family.family, String(index).padStart(3, "0"));
              const problems = await runCase(item, caseDir, reference, outside);
              if (problems.failure) {
                failures.push({ family: family.family, name: item.name, ...problems.failure });
                assert.fail(describe(problems.failure));
              }
            },
          }));
          for (let start = 0; start < steps.length; start += family.parallel) {
            await Promise.all(
              steps.slice(start, start + family.parallel).map((step) => t.step(step)),
            );
          }
          const verified = await inProcess(["verify", reference.run, "--home", reference.home]);
          assert.equal(
            verified.code,
            0,
            `the run made before the ${family.family} cases no longer verifies: ` +
              `${verified.stdout}${verified.stderr}`,
          );
        });
      }
    } finally {
      await Deno.remove(outside, { recursive: true }).catch(() => {});
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`corpus: ${total} cases in ${seconds} s, ${failures.length} failing`);
      for (const failure of failures) {
        console.log(`FAIL ${failure.family} / ${failure.name}\n  ${describe(failure)}`);
      }
    }
  },
});

/** A finished oracle run on the one-task bench suite: what every family must leave verifiable. */
async function makeReference(home: string): Promise<Reference> {
  const result = await inProcess([
    "eval",
    "--agent",
    "oracle",
    "--seed",
    "6",
    join(PROJECT_ROOT, "tests", "fixtures", "bench"),
    "--home",
    home,
    "--json",
  ]);
  assert.equal(result.code, 0, `the reference run failed: ${result.stderr}`);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials[0].verdict, "pass", "the reference run's oracle passes");
  return { home, run: results.run.id, session: results.trials[0].session };
}

async function runCase(
  item: CorpusCase,
  caseDir: string,
  reference: Reference,
  outside: string,
): Promise<{ failure?: Omit<Failure, "family" | "name"> }> {
  await Deno.mkdir(caseDir, { recursive: true });
  const home = item.own_home ? join(caseDir, "home") : reference.home;
  if (item.own_home) await copyTree(reference.home, home);
  const values: Record<string, string> = {
    case: caseDir,
    task: join(caseDir, "task"),
    home,
    run: reference.run,
    session: reference.session,
    bench: join(PROJECT_ROOT, "tests", "fixtures", "bench"),
    outside,
  };
  await using provider = item.replies ? repeatingProvider(item.replies) : undefined;
  if (provider) values.provider = provider.url;
  await prepareCase(item, values);
  const unchanged = new Map<string, Uint8Array>();
  for (const path of item.unchanged ?? []) {
    const full = join(home, expand(path, values));
    unchanged.set(full, await Deno.readFile(full));
  }
  await damageHome(home, item.damage ?? [], values);
  const runsBefore = await runFolders(home);

  const args = item.args.map((arg) => expand(arg, values));
  const env = item.env ?? {};
  const result = item.subprocess
    ? await runVerdict(args, { env })
    : await withTimeout(inProcess(args, env), item.name);

  const expected = [item.exit].flat();
  const problems: string[] = [];
  const stderr = result.stderr.toLowerCase();
  const both = `${result.stdout}\n${result.stderr}`.toLowerCase();
  if (!expected.includes(result.code)) problems.push(`exit ${result.code}`);
  if (both.includes("internal error")) problems.push("an internal error");
  for (const text of item.stderr ?? []) {
    if (!stderr.includes(expand(text, values).toLowerCase())) {
      problems.push(`stderr lacks '${text}'`);
    }
  }
  for (const text of item.stderr_not ?? []) {
    if (stderr.includes(expand(text, values).toLowerCase())) {
      problems.push(`stderr says '${text}'`);
    }
  }
  for (const text of item.output ?? []) {
    if (!both.includes(expand(text, values).toLowerCase())) {
      problems.push(`the output lacks '${text}'`);
    }
  }
  if (result.code === USAGE && item.names) {
    const named = expand(item.names, values);
    if (!result.stderr.includes(named)) problems.push(`the message does not name ${named}`);
  }
  if (item.one_line && result.stderr.trim().includes("\n")) {
    problems.push("the message is more than one line");
  }
  if (expected.every((code) => code === USAGE)) {
    const added = (await runFolders(home)).filter((name) => !runsBefore.includes(name));
    if (added.length > 0) problems.push(`a refused input left run folders: ${added.join(", ")}`);
  }
  for (const [path, bytes] of unchanged) {
    const now = await Deno.readFile(path).catch(() => null);
    if (now === null || !equalBytes(now, bytes)) problems.push(`${path} changed`);
  }
  for (const path of item.absent ?? []) {
    const full = expand(path, values);
    if (await Deno.lstat(full).then(() => true, () => false)) problems.push(`${full} exists`);
  }
  if (item.own_home && !item.damage) {
    const verified = await inProcess(["verify", reference.run, "--home", home]);
    if (verified.code !== 0) {
      problems.push(`the earlier run no longer verifies: ${verified.stdout}`);
    }
  }
  if (problems.length === 0) return {};
  return {
    failure: {
      command: `verdict ${args.join(" ")}`,
      expected: expected.join(" or "),
      actual: result.code,
      stderr: result.stderr.trim().split("\n")[0] ?? "",
      problems,
    },
  };
}

async function inProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const io = memoryIo({
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    ...(Deno.env.get("DOCKER_HOST") ? { DOCKER_HOST: Deno.env.get("DOCKER_HOST")! } : {}),
    NO_COLOR: "1",
    ...env,
  });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

function repeatingProvider(replies: CorpusCase["replies"] & object) {
  const last = replies[replies.length - 1];
  return fakeProvider([...replies], () => last);
}

async function withTimeout(work: Promise<CliResult>, name: string): Promise<CliResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<CliResult>((resolve) => {
    timer = setTimeout(() =>
      resolve({
        code: -1,
        stdout: "",
        stderr: `${name}: no exit within ${CASE_TIMEOUT_MS / 1000} s`,
      }), CASE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(failure: Omit<Failure, "family" | "name">): string {
  return `${failure.command}\n  expected exit ${failure.expected}, got ${failure.actual}: ` +
    `${failure.problems.join("; ")}\n  stderr: ${failure.stderr}`;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
