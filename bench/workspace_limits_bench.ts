/**
 * What an agent's end state costs the harness (issue 11, items 5 and 6): an oracle trial whose
 * solution leaves 90,000 empty files (within the default limits: sealed, staged and graded),
 * 100,000 (past `limits.max_workspace_files`: refused at the seal), or a 2 GiB sparse file (past
 * `limits.max_workspace_bytes`), each in its own `verdict eval` process; then the 100,000-file
 * trial beside a trivial one in the same process (`--concurrency 2`), to see whether the harness
 * stays responsive. For each: wall time, the trial's duration and verdict, and the eval process's
 * peak memory (VmHWM, polled from /proc). Run: `deno task bench:limits` (the `bench` permission
 * set; Deno reads `/proc` only with `--allow-all`, so the bench reads it through `cat`).
 *
 * @module
 */
import type { Results } from "../src/report/results.ts";
import { scratchFolder } from "./_measure.ts";

interface Measured {
  wallS: number;
  peakMb: number;
  code: number;
  trials: { task: string; verdict: string; bucket: string; reason: string; durationS: number }[];
}

/** The process's peak resident memory so far, in KiB; 0 once it has exited. */
async function peakKb(pid: number): Promise<number> {
  const read = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stderr: "null" })
    .output();
  if (read.code !== 0) return 0;
  const status = new TextDecoder().decode(read.stdout);
  return Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

async function evalRun(target: string, extra: string[] = []): Promise<Measured> {
  await using home = await scratchFolder("limits-bench");
  const started = performance.now();
  const child = new Deno.Command("deno", {
    args: [
      "run",
      "-P=verdict",
      "--quiet",
      "cli.ts",
      "eval",
      "--agent",
      "oracle",
      target,
      "--home",
      home.path,
      "--json",
      ...extra,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let peak = 0;
  let running = true;
  const polling = (async () => {
    while (running) {
      peak = Math.max(peak, await peakKb(child.pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const output = await child.output();
  running = false;
  await polling;
  const results = JSON.parse(new TextDecoder().decode(output.stdout)) as Results;
  return {
    wallS: (performance.now() - started) / 1000,
    peakMb: peak / 1024,
    code: output.code,
    trials: results.trials.map((trial) => ({
      task: trial.task,
      verdict: trial.verdict,
      bucket: trial.bucket,
      reason: trial.reason.slice(0, 120),
      durationS: trial.duration_ms / 1000,
    })),
  };
}

const scenarios: [string, string, string[]][] = [
  ["90,000 empty files", "tests/fixtures/limits_bench/files-90k", []],
  ["100,000 empty files", "tests/fixtures/limits_bench/files-100k", []],
  ["2 GiB sparse file", "tests/fixtures/limits/sparse-file", []],
  ["100,000 files beside a trivial trial", "tests/fixtures/limits_bench", [
    "--task",
    "files-100k",
    "--task",
    "quick",
    "--concurrency",
    "2",
  ]],
];
for (const [name, target, extra] of scenarios) {
  const measured = await evalRun(target, extra);
  console.log(
    `${name}: exit ${measured.code}, ${measured.wallS.toFixed(1)} s wall, ` +
      `peak ${measured.peakMb.toFixed(0)} MB`,
  );
  for (const trial of measured.trials) {
    console.log(
      `  ${trial.task}: ${trial.verdict} (${trial.bucket}) in ${trial.durationS.toFixed(1)} s: ` +
        trial.reason,
    );
  }
}
