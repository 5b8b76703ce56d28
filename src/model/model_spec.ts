/**
 * `--model` specs: `scripted` (with knobs such as `scripted:faults=0.3`), `openai:MODEL`,
 * `anthropic:MODEL`, `replay:SESSION|RUN`.
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";

/** Where the scripted model's crash knob stops the process: a point, at a step. */
export interface CrashKnob {
  /** Where the process dies. */
  point: CrashPoint;
  /** The step (ignored for `grading`). */
  step: number;
}

/** The points a crash knob may name: four in each step of the loop, and grading. */
export const CRASH_POINTS = [
  "before-model",
  "after-response",
  "mid-tool",
  "after-result",
  "grading",
] as const;

/** One of {@linkcode CRASH_POINTS}. */
export type CrashPoint = typeof CRASH_POINTS[number];

/** A parsed model spec; `replay` names a recorded run or session (see `eval/replay_model.ts`). */
export type ModelSpec =
  | { kind: "scripted"; faults: number; crash: CrashKnob | null }
  | { kind: "openai"; model: string }
  | { kind: "anthropic"; model: string }
  | { kind: "replay"; source: string };

/**
 * Parses a model spec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelSpec } from "./model_spec.ts";
 * assert(parseModelSpec("scripted:faults=0.3").kind === "scripted");
 * assert(parseModelSpec("openai:gpt-4o").kind === "openai");
 * ```
 * @throws {UsageError} for an unknown kind, a missing model name or a bad knob.
 */
export function parseModelSpec(text: string): ModelSpec {
  const colon = text.indexOf(":");
  const kind = colon === -1 ? text : text.slice(0, colon);
  const rest = colon === -1 ? "" : text.slice(colon + 1);
  switch (kind) {
    case "scripted":
      return parseScripted(rest, text);
    case "openai":
    case "anthropic":
      if (rest === "") {
        throw new UsageError(
          `--model ${text} needs a model name, such as ${kind}:${
            kind === "openai" ? "gpt-4o" : "claude-sonnet-4-5"
          }`,
        );
      }
      return { kind, model: rest };
    case "replay":
      if (!/^[0-9a-f]+(-[0-9]+)?$/.test(rest)) {
        throw new UsageError(
          `--model ${text} needs the id (or a prefix) of a recorded run or session, such as ` +
            `replay:abc123: the id 'verdict eval' printed`,
        );
      }
      return { kind, source: rest };
    default:
      throw new UsageError(
        `--model ${text}: unknown kind '${kind}'; use scripted, openai:MODEL, anthropic:MODEL or replay:RUN|SESSION`,
      );
  }
}

function parseScripted(knobs: string, text: string): ModelSpec {
  const spec = { kind: "scripted" as const, faults: 0, crash: null as CrashKnob | null };
  if (knobs === "") return spec;
  for (const knob of knobs.split(",")) {
    const [name, value] = knob.split("=", 2);
    if (name === "faults") {
      const faults = Number(value);
      if (!(faults >= 0 && faults <= 1) || value === undefined || value.trim() === "") {
        throw new UsageError(
          `--model ${text}: faults must be a fraction from 0 to 1, such as faults=0.3`,
        );
      }
      spec.faults = faults;
    } else if (name === "crash") {
      const match = /^([a-z-]+)(?:@(\d+))?$/.exec(value ?? "");
      if (
        !match || !isCrashPoint(match[1]) ||
        (match[1] !== "grading" && match[2] === undefined)
      ) {
        throw new UsageError(
          `--model ${text}: crash takes POINT@STEP (POINT one of ${
            CRASH_POINTS.join(", ")
          }; grading needs no step)`,
        );
      }
      spec.crash = { point: match[1], step: Number(match[2] ?? 0) };
    } else {
      throw new UsageError(
        `--model ${text}: unknown knob '${name}'; scripted takes faults=X and crash=POINT@STEP`,
      );
    }
  }
  return spec;
}

/**
 * The spec as recorded: canonical, with no secrets (specs never hold keys; base URLs are
 * recorded separately without credentials).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatModelSpec } from "./model_spec.ts";
 * assert(formatModelSpec({ kind: "scripted", faults: 0, crash: null }) === "scripted");
 * ```
 */
export function formatModelSpec(spec: ModelSpec): string {
  switch (spec.kind) {
    case "scripted": {
      const knobs = [
        ...(spec.faults > 0 ? [`faults=${spec.faults}`] : []),
        ...(spec.crash
          ? [
            `crash=${spec.crash.point}${
              spec.crash.point === "grading" ? "" : `@${spec.crash.step}`
            }`,
          ]
          : []),
      ];
      return knobs.length > 0 ? `scripted:${knobs.join(",")}` : "scripted";
    }
    case "openai":
    case "anthropic":
      return `${spec.kind}:${spec.model}`;
    case "replay":
      return `replay:${spec.source}`;
  }
}

function isCrashPoint(name: string): name is CrashPoint {
  return (CRASH_POINTS as readonly string[]).includes(name);
}
