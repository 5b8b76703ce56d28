/**
 * The reward a Harbor task's verifier wrote (step 4 of `harbor_grade.ts`), read from the
 * `/logs/verifier` the engine copies out of the stopped grader.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import type { SandboxContainer } from "../engine/sandbox.ts";
import type { TarEntry } from "../engine/tar.ts";
import { HARBOR_VERIFIER_LOGS } from "./harbor_grader.ts";

/**
 * The reward file the verifier left, copied out of the stopped grader by the engine, or why there
 * is none (`tampering: ...` when the folder was tampered with).
 *
 * @example
 * ```ts ignore
 * const written = await rewardWritten(grader);
 * ```
 */
export async function rewardWritten(
  grader: SandboxContainer,
): Promise<{ file: "reward.txt" | "reward.json"; text: string } | string> {
  let copied: TarEntry[];
  try {
    copied = await grader.copyOut(HARBOR_VERIFIER_LOGS);
  } catch (error) {
    if (!(error instanceof InfrastructureError)) throw error;
    return `tampering: ${HARBOR_VERIFIER_LOGS} is gone from the grader: ${error.message}`;
  }
  const folder = copied.find((entry) => entry.path === "verifier");
  if (folder?.type !== "dir") {
    return `tampering: ${HARBOR_VERIFIER_LOGS} is no longer a folder after the verifier ran`;
  }
  const files = ["reward.txt", "reward.json"].flatMap((name) => {
    const entry = copied.find((candidate) => candidate.path === `verifier/${name}`);
    return entry?.type === "file"
      ? [{ file: name as "reward.txt" | "reward.json", text: new TextDecoder().decode(entry.data) }]
      : [];
  });
  if (files.length === 0) {
    return `no reward: the verifier wrote neither ${HARBOR_VERIFIER_LOGS}/reward.txt nor reward.json`;
  }
  if (files.length === 2) {
    const [text, json] = files.map((written) => parseReward(written.file, written.text));
    if (text !== json) {
      return `tampering: ${HARBOR_VERIFIER_LOGS} holds both reward.txt (${text}) and reward.json ` +
        `(${json}), and they disagree`;
    }
  }
  return files[0];
}

/**
 * Reads the reward the verifier wrote, or says why there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseReward } from "./_harbor_reward.ts";
 * assert.equal(parseReward("reward.txt", "1\n"), 1);
 * assert.equal(parseReward("reward.json", '{"reward": 0.75}'), 0.75);
 * assert.match(String(parseReward("reward.txt", "yes")), /not a number/);
 * ```
 */
export function parseReward(file: "reward.txt" | "reward.json", text: string): number | string {
  const where = `${HARBOR_VERIFIER_LOGS}/${file}`;
  if (file === "reward.txt") {
    const trimmed = text.trim();
    const value = Number(trimmed);
    if (trimmed === "" || !Number.isFinite(value)) {
      return `${where} is not a number: ${JSON.stringify(trimmed.slice(0, 80))}`;
    }
    return value;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return `${where} is not JSON: ${JSON.stringify(text.trim().slice(0, 80))}`;
  }
  if (typeof data === "number" && Number.isFinite(data)) return data;
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const values = Object.entries(data as Record<string, unknown>);
    const reward = (data as Record<string, unknown>).reward;
    if (typeof reward === "number" && Number.isFinite(reward)) return reward;
    const [only] = values;
    if (values.length === 1 && typeof only[1] === "number" && Number.isFinite(only[1])) {
      return only[1];
    }
  }
  return `${where} holds no "reward" number: ${JSON.stringify(text.trim().slice(0, 80))}`;
}
