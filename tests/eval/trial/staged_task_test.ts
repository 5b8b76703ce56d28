import assert from "node:assert/strict";
import { DEFAULT_POLICY } from "../../../src/policy/default_policy.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import { packWorkspace } from "../../../src/eval/trial/workspace_pack.ts";
import { packOwnedTar, type TarEntry } from "../../../src/engine/tar.ts";
import { loadTask } from "../../../src/task/load_task.ts";

const data = new TextEncoder().encode("SMTP_PASSWORD=pa55\n");

Deno.test("a file the policy hides is packed for root, owner-only, after the agent's files", async () => {
  const entries: TarEntry[] = [
    { path: ".env", type: "file", mode: 0o644, data },
    { path: "notes.txt", type: "file", mode: 0o644, data },
  ];
  const staged = await stageTask(await loadTask("tasks/policy-keep-secrets"));
  assert.deepEqual(
    staged.workspaceTar(entries),
    packOwnedTar([
      {
        entries: [
          { path: "workspace", type: "dir", mode: 0o755 },
          { path: "workspace/notes.txt", type: "file", mode: 0o644, data },
        ],
        options: { uid: 1000, gid: 1000 },
      },
      {
        entries: [{ path: "workspace/.env", type: "file", mode: 0o600, data }],
        options: { uid: 0, gid: 0 },
      },
    ]),
  );
  // The default policy hides nothing: every entry is the agent's.
  assert.deepEqual(
    packWorkspace(entries, DEFAULT_POLICY, "/workspace"),
    packOwnedTar([{
      entries: [
        { path: "workspace", type: "dir", mode: 0o755 },
        ...entries.map((entry) => ({ ...entry, path: `workspace/${entry.path}` })),
      ],
      options: { uid: 1000, gid: 1000 },
    }]),
  );
});

Deno.test("a staged task packs its workspace, and any entries, the one way", async () => {
  const staged = await stageTask(await loadTask("tests/fixtures/bench/trivial"));
  const readme = staged.initial.entries[0];
  assert.equal(readme.type, "file");
  const entries: TarEntry[] = [{
    path: readme.path,
    type: "file",
    mode: readme.type === "file" ? readme.mode : 0,
    data: staged.initial.contents.get(readme.type === "file" ? readme.sha256 : "")!,
  }];
  assert.deepEqual(staged.tar, staged.workspaceTar(entries));
});
