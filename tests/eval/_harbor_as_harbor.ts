/**
 * A Harbor task graded as Harbor grades it: the solution, then the verifier, in the agent's own
 * container. The controls of the attack tests: what passes here and fails under Verdict is an
 * attack Verdict's fresh grader stops.
 *
 * @module
 */
import { join } from "node:path";
import type { Docker } from "../../src/engine/docker.ts";

/**
 * The reward `tests/test.sh` writes after `solution/solve.sh` ran in one container of `image`
 * (the task folder `dir`), read a second after the script ended, as a leftover process may still
 * write. `sh` (dash) drives it, as Harbor's exec does from outside: an attack may kill every bash.
 */
export async function rewardAsHarborGives(
  docker: Docker,
  image: string,
  dir: string,
): Promise<{ reward: string; stderr: string }> {
  const result = await docker.run([
    "run",
    "--rm",
    "--network=none",
    "--volume",
    `${join(dir, "solution")}:/verdict-solution:ro`,
    "--volume",
    `${join(dir, "tests")}:/verdict-upload:ro`,
    image,
    "sh",
    "-c",
    "bash /verdict-solution/solve.sh >/dev/null 2>&1; mkdir -p /tests /logs/verifier; " +
    "cp -r /verdict-upload/. /tests/; bash /tests/test.sh >/dev/null 2>&1; sleep 1; " +
    "cat /logs/verifier/reward.txt",
  ]);
  return { reward: new TextDecoder().decode(result.stdout).trim(), stderr: result.stderr };
}
