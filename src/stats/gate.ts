/**
 * Gates: thresholds a candidate run must meet against a base run. A gate fails closed: runs that
 * cannot be compared, or too few paired cases, fail it; so does a drop in pass rate beyond
 * `max_drop_pp`, or a regression McNemar's test finds significant at `alpha`.
 *
 * ```yaml
 * max_drop_pp: 5     # largest allowed drop in pass rate, in percentage points
 * alpha: 0.05        # significance level for pass→fail flips (default 0.05)
 * min_cases: 10      # fewest paired trials to decide on (default 10)
 * ```
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../core/errors.ts";
import { schemaProblems } from "../core/schema_problems.ts";
import type { Comparison } from "./compare.ts";
import { parseYamlInput } from "../core/yaml_input.ts";
import type { Expect, Same } from "../core/same_type.ts";

/**
 * A gate's thresholds, defaults filled in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Gate } from "./gate.ts";
 * const gate: Gate = { max_drop_pp: 5, alpha: 0.05, min_cases: 10 };
 * assert(gate.max_drop_pp > 0);
 * ```
 */
export interface Gate {
  /** The largest allowed drop in pass rate, in percentage points. */
  max_drop_pp: number;
  /** The significance level for pass→fail flips, in (0, 1); default 0.05. */
  alpha: number;
  /** The fewest paired trials to decide on; default 10. */
  min_cases: number;
}

const GATE_SCHEMA = z.strictObject({
  max_drop_pp: z.number().min(0),
  alpha: z.number().gt(0).lt(1).default(0.05),
  min_cases: z.number().int().min(1).default(10),
});
type _SchemaMatchesGate = Expect<Same<z.output<typeof GATE_SCHEMA>, Gate>>;

/**
 * A gate's decision.
 *
 * @example Too few paired trials fail the gate
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideGate, type GateOutcome } from "./gate.ts";
 * const outcome: GateOutcome = decideGate({ max_drop_pp: 5, alpha: 0.05, min_cases: 10 }, {
 *   comparable: true, base: "a", candidate: "b", pairs: 2, b: 0, c: 0, p_value: 1,
 *   base_pass_rate: 1, candidate_pass_rate: 1, delta_pp: 0, flips: [],
 * });
 * assert(!outcome.passed && outcome.reasons.length === 1);
 * ```
 */
export interface GateOutcome {
  /** Whether the candidate passes. */
  passed: boolean;
  /** Why it fails; empty when it passes. */
  reasons: string[];
}

/**
 * Parses a gate file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseGate } from "./gate.ts";
 * const gate = parseGate("max_drop_pp: 5\n", "gate.yaml");
 * assert(gate.alpha === 0.05 && gate.min_cases === 10);
 * ```
 * @throws {InputError} naming the file, the field and the fix; unknown keys are an error.
 */
export function parseGate(text: string, file: string): Gate {
  const parsed = GATE_SCHEMA.safeParse(parseYamlInput(text, file), { reportInput: true });
  if (!parsed.success) throw new InputError(schemaProblems(file, GATE_SCHEMA, parsed.error.issues));
  return parsed.data;
}

/**
 * Decides a gate on a comparison.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideGate } from "./gate.ts";
 * const outcome = decideGate({ max_drop_pp: 5, alpha: 0.05, min_cases: 10 }, {
 *   comparable: false, base: "a", candidate: "b", differences: ["repeat count 1 vs 3"],
 * });
 * assert(!outcome.passed);
 * ```
 */
export function decideGate(gate: Gate, comparison: Comparison): GateOutcome {
  if (!comparison.comparable) {
    return {
      passed: false,
      reasons: [`the runs cannot be compared: ${comparison.differences.join("; ")}`],
    };
  }
  const reasons: string[] = [];
  if (comparison.pairs < gate.min_cases) {
    reasons.push(`only ${comparison.pairs} paired cases, fewer than min_cases ${gate.min_cases}`);
  }
  if (comparison.delta_pp !== null && -comparison.delta_pp > gate.max_drop_pp) {
    reasons.push(
      `the pass rate dropped ${
        (-comparison.delta_pp).toFixed(1)
      } points, more than max_drop_pp ${gate.max_drop_pp}`,
    );
  }
  if (comparison.b > comparison.c && comparison.p_value < gate.alpha) {
    reasons.push(
      `a significant regression: ${comparison.b} pass→fail against ${comparison.c} fail→pass, ` +
        `p = ${comparison.p_value.toPrecision(3)} < alpha ${gate.alpha}`,
    );
  }
  return { passed: reasons.length === 0, reasons };
}
