import assert from "node:assert/strict";
import { AGENT_OWNER } from "../../src/engine/sandbox.ts";
import { sealEntries, snapshotContents, storeSnapshot } from "../../src/workspace/snapshot.ts";
import { packOwnedTar, packTar, parseTar, type TarEntry } from "../../src/engine/tar.ts";
import { packWorkspaceTar } from "../../src/workspace/workspace_tar.ts";
import { openStore } from "../../src/store/store.ts";

const text = (value: string) => new TextEncoder().encode(value);

const ENTRIES: TarEntry[] = [
  { path: "a.txt", type: "file", mode: 0o644, data: text("a\n") },
  { path: "deep", type: "dir", mode: 0o700 },
  { path: `deep/${"long-name-".repeat(12)}.txt`, type: "file", mode: 0o600, data: text("pax") },
  { path: "link", type: "symlink", target: "a.txt" },
];

// The bytes are those the three places that packed a workspace wrote before they shared one
// function: a derived image's name hashes them, so a change would rebuild every image.
Deno.test("a workspace at its workdir packs as before: the folder first, all the agent's", () => {
  const before = packTar([
    { path: "workspace", type: "dir", mode: 0o755 },
    ...ENTRIES.map((entry) => ({ ...entry, path: `workspace/${entry.path}` })),
  ], { uid: 1000, gid: 1000 });
  assert.deepEqual(packWorkspaceTar(ENTRIES, "/workspace"), before);
  assert.deepEqual(packWorkspaceTar(ENTRIES, "/srv/app/").subarray(0, 8), text("srv/app/"));
});

Deno.test("a workspace packed at . has ./ paths and no folder entry, as grading unpacked it", () => {
  const before = packTar(
    ENTRIES.map((entry) => ({ ...entry, path: `./${entry.path}` })),
    { uid: 1000, gid: 1000 },
  );
  assert.deepEqual(packWorkspaceTar(ENTRIES, "."), before);
});

Deno.test("entries kept for root come last, owned by root", () => {
  const rootOwned = (entry: TarEntry) => entry.path === "a.txt";
  const tar = packWorkspaceTar(ENTRIES, "/workspace", rootOwned);
  assert.deepEqual(
    tar,
    packOwnedTar([
      {
        entries: [
          { path: "workspace", type: "dir", mode: 0o755 },
          ...ENTRIES.slice(1).map((entry) => ({ ...entry, path: `workspace/${entry.path}` })),
        ],
        options: AGENT_OWNER,
      },
      { entries: [{ ...ENTRIES[0], path: "workspace/a.txt" }], options: { uid: 0, gid: 0 } },
    ]),
  );
  assert.equal(parseTar(tar).at(-1)?.path, "workspace/a.txt");
});

Deno.test("a snapshot's contents are its entries with their bytes, read back from the store", () => {
  const store = openStore(":memory:");
  try {
    const sealed = sealEntries(ENTRIES);
    storeSnapshot(store.blobs, sealed);
    const byPath = (a: TarEntry, b: TarEntry) => a.path < b.path ? -1 : 1;
    assert.deepEqual(snapshotContents(store.blobs, sealed), [...ENTRIES].sort(byPath));
  } finally {
    store.close();
  }
});
