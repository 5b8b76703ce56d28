/**
 * The Docker engines a state folder's runs used, as their trials recorded them (`trial.started`'s
 * `engine`, written when a run was given several with `--engine`).
 *
 * @module
 */
import type { Store } from "./store.ts";

/**
 * Every engine name a trial of `store` recorded, sorted; empty when no run named one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { recordedEngines } from "./recorded_engines.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * store.events.append("s", [{ kind: "trial.started", payload: { engine: "ssh://ci@b" } }]);
 * assert.deepEqual(recordedEngines(store), ["ssh://ci@b"]);
 * ```
 */
export function recordedEngines(store: Store): string[] {
  const rows = store.db.prepare(
    "SELECT DISTINCT json_extract(payload, '$.engine') AS engine FROM events " +
      "WHERE kind = 'trial.started' AND json_extract(payload, '$.engine') IS NOT NULL " +
      "ORDER BY engine",
  ).all() as { engine: string }[];
  return rows.map((row) => row.engine);
}
