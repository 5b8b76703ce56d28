/**
 * A sweep of two agents over one task, in Docker, and their paired comparison: the script of
 * docs/library.md. From the repository's root: `deno run -P=verdict docs/examples/sweep.ts [HOME]`
 * (HOME, the state folder, defaults to `.verdict`).
 *
 * @module
 */
import { compareEvals, Docker, DockerSandbox, runSweep } from "@verdict/verdict";

const home = Deno.args[0] ?? ".verdict";
const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });

// One run per agent, over the same task, repeats and seed: nop is the base, the oracle the candidate.
const { runs } = await runSweep(
  { paths: ["tasks/fix-slugify"], agents: ["nop", "oracle"], repeat: 2, home },
  { sandbox: new DockerSandbox(docker), signal: AbortSignal.timeout(10 * 60_000) },
);
for (const { run, results } of runs) {
  const { passed, trials } = results.summary;
  console.log(`run ${run.id}: ${results.run.agent} passed ${passed} of ${trials}`);
}

// Trial by trial: what flipped, and whether the flips could be chance.
const [base, candidate] = runs.map((outcome) => outcome.run.id);
const comparison = compareEvals(home, base, candidate);
if (!comparison.comparable) throw new Error(comparison.differences.join("; "));
console.log(
  `${comparison.c} fail→pass, ${comparison.b} pass→fail, p = ${comparison.p_value.toFixed(3)}`,
);
