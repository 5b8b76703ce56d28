import assert from "node:assert/strict";
import { join } from "node:path";
import {
  EVENT,
  EVENT_FAMILIES,
  EVENT_SCHEMAS,
  type EventKind,
  SNAPSHOT_KINDS,
} from "../../src/store/event_catalogue.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../_verdict.ts";

// The kinds records hold today: a stored kind is never renamed or removed (old records must read).
const STORED_KINDS = [
  "trial.started",
  "trial.resumed",
  "workspace.staged",
  "agent.oracle",
  "agent.nop",
  "agent.cmd",
  "agent.transcript",
  "loop.started",
  "context.compacted",
  "model.request",
  "model.retry",
  "model.response",
  "policy.decision",
  "tool.intent",
  "tool.result",
  "workspace.snapshot",
  "loop.stopped",
  "agent.stopped",
  "end_state.sealed",
  "grading.finished",
  "trial.verdict",
  "gateway.call",
  "gateway.answer",
];

Deno.test("every kind is defined once, in one family, with a description", () => {
  const defined = Object.values(EVENT_FAMILIES).flatMap((family) => Object.keys(family));
  assert.equal(new Set(defined).size, defined.length, "a kind is defined in two families");
  assert.deepEqual(Object.keys(EVENT_SCHEMAS).sort(), [...defined].sort());
  for (const kind of STORED_KINDS) assert(defined.includes(kind), `${kind} is no longer defined`);
  for (const [kind, schema] of Object.entries(EVENT_SCHEMAS)) {
    assert.match(schema.description ?? "", /^[A-Z`].*\.$/, `${kind} has no description`);
  }
});

Deno.test("EVENT names every kind by its camel case, and nothing else", () => {
  const kinds = Object.keys(EVENT_SCHEMAS);
  assert.deepEqual(Object.values(EVENT).sort(), [...kinds].sort());
  for (const [name, kind] of Object.entries(EVENT)) {
    assert.equal(name, kind.replace(/[._](.)/g, (_, letter: string) => letter.toUpperCase()));
  }
  assert.equal(EVENT.endStateSealed, "end_state.sealed");
});

Deno.test("SNAPSHOT_KINDS are the kinds whose root is a snapshot, derived from their schemas", () => {
  const snapshots: EventKind[] = [
    EVENT.trialResumed,
    EVENT.workspaceStaged,
    EVENT.workspaceSnapshot,
    EVENT.endStateSealed,
  ];
  assert.deepEqual([...SNAPSHOT_KINDS].sort(), snapshots.sort());
});

/** Applies a one-file unified diff in `root`; returns the file's path. */
async function applyDiff(root: string, diff: string): Promise<string> {
  const files = [...diff.matchAll(/^\+\+\+ b\/(\S+)$/gm)].map((match) => match[1]);
  assert.equal(files.length, 1, `the diff edits ${files.length} files`);
  const lines = diff.split("\n");
  const hunk = lines.slice(lines.findIndex((line) => line.startsWith("@@")) + 1);
  const side = (keep: string) =>
    hunk.filter((line) => line[0] === " " || line[0] === keep).map((line) => line.slice(1))
      .join("\n");
  const path = join(root, files[0]);
  const text = await Deno.readTextFile(path);
  assert.equal(text.split(side("-")).length, 2, "the diff's context is not in the file, once");
  await Deno.writeTextFile(path, text.replace(side("-"), side("+")));
  return files[0];
}

const PROBE = `
import { EVENT, EVENT_SCHEMAS, event, last } from "./src/store/event_catalogue.ts";
import { openStore } from "./src/store/store.ts";
const store = openStore(":memory:");
store.runs.create({ id: "r", config: {}, createdAt: 0 });
store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
const skipped = { step: 1, call_id: "c", tool: "shell", reason: "denied twice" };
store.events.append("s", [event(EVENT.toolSkipped, skipped)]);
// @ts-expect-error: the new kind's payload is checked by the compiler
event(EVENT.toolSkipped, { step: 1 });
const reason: string = last(store.events.read("s"), EVENT.toolSkipped)!.payload.reason;
console.log(JSON.stringify([reason, EVENT_SCHEMAS[EVENT.toolSkipped].description]));
store.close();
`;

Deno.test("adding a kind is the one-file diff docs/events.md shows: the library writes and reads it", async () => {
  const docs = await Deno.readTextFile(join(PROJECT_ROOT, "docs", "events.md"));
  const diff = /^```diff\n([\s\S]*?)^```$/m.exec(docs)?.[1];
  assert(diff !== undefined, "docs/events.md shows no diff");
  await using tree = await scratchDir("event-kind");
  // The store and what it imports: its layer and the ones below (lint/layers.ts).
  for (const path of ["deno.json", "deno.lock", "src/core", "src/store"]) {
    await copyTree(join(PROJECT_ROOT, path), join(tree.path, path));
  }
  assert.equal(await applyDiff(tree.path, diff), "src/store/events/tool_events.ts");
  await Deno.writeTextFile(join(tree.path, "probe.ts"), PROBE);
  const output = await new Deno.Command("deno", {
    args: ["run", "--check", "--quiet", "probe.ts"],
    cwd: tree.path,
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  assert.equal(output.code, 0, decoder.decode(output.stderr));
  assert.deepEqual(JSON.parse(decoder.decode(output.stdout)), [
    "denied twice",
    "A tool call the loop did not run, and why.",
  ]);
});
