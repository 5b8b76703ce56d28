/**
 * A static bundle of one run for a CI artifact: a folder with one `index.html` that holds the
 * run's listing, its results and statistics, and every trial's story, and opens from disk with no
 * server and no network.
 *
 * @module
 */
import { join } from "node:path";
import type { Store } from "../store/store.ts";
import { runsView, runView, trialView } from "./view_data.ts";
import { type BundleData, renderViewerPage } from "./viewer_page.ts";

/**
 * Writes the bundle of run `id` (an exact id) into `folder`, creating it; returns the page's path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { writeViewerBundle } from "./viewer_bundle.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "oracle" }, createdAt: 0 });
 * const folder = await Deno.makeTempDir();
 * const page = await writeViewerBundle(store, "r1", folder);
 * assert((await Deno.readTextFile(page)).includes('"#/run/r1"'));
 * await Deno.remove(folder, { recursive: true });
 * ```
 * @throws {Error} when the store has no run `id`.
 */
export async function writeViewerBundle(store: Store, id: string, folder: string): Promise<string> {
  const run = runView(store, id);
  if (run === undefined) throw new Error(`no run '${id}' in ${store.path}`);
  const key = encodeURIComponent(id);
  const data: BundleData = {
    start: `#/run/${key}`,
    "api/runs": runsView(store).filter((listed) => listed.id === id),
    [`api/runs/${key}`]: run,
  };
  const sessions = [...run.results.trials, ...(run.results.unfinished ?? [])];
  for (const { session } of sessions) {
    data[`api/trials/${encodeURIComponent(session)}`] = trialView(store, session);
  }
  await Deno.mkdir(folder, { recursive: true });
  const page = join(folder, "index.html");
  await Deno.writeTextFile(page, renderViewerPage(data));
  return page;
}
