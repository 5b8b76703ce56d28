import assert from "node:assert/strict";
import { readTar, type TarEntry, TarFormatError } from "../../src/kit/_tar_reader.ts";
import { tarArchive } from "./_npm_tarball.ts";

async function entries(bytes: Uint8Array, pieceSize: number) {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += pieceSize) {
    pieces.push(bytes.subarray(at, at + pieceSize));
  }
  const seen: { entry: TarEntry; text: string }[] = [];
  await readTar(ReadableStream.from(pieces), async (entry, content) => {
    let text = "";
    if (!entry.path.endsWith("skipped")) {
      for await (const piece of content) text += new TextDecoder().decode(piece);
    }
    seen.push({ entry, text });
  });
  return seen;
}

Deno.test("readTar hands over each entry's path, mode and content, however the stream is cut", async () => {
  const long = `package/${"deep/".repeat(25)}file.txt`;
  const archive = tarArchive([
    { path: "package/a.txt", content: "x".repeat(700) },
    { path: "package/skipped", content: "not read by the visitor" },
    { path: long, content: "long path", mode: 0o755 },
  ]);
  for (const pieceSize of [1, 7, 512, 100_000]) {
    const seen = await entries(archive, pieceSize);
    assert.deepEqual(seen.map(({ entry }) => entry.path), [
      "package/a.txt",
      "package/skipped",
      long,
    ]);
    assert.deepEqual(seen[0].text, "x".repeat(700));
    assert.deepEqual(seen[2], {
      entry: { path: long, type: "file", size: 9, mode: 0o755 },
      text: "long path",
    });
  }
});

Deno.test("readTar refuses bytes that are not tar, and an archive cut short", async () => {
  const text = new TextEncoder().encode('{"not": "a tar"}'.padEnd(600, " "));
  await assert.rejects(() => entries(text, 512), TarFormatError);
  const archive = tarArchive([{ path: "package/a.txt", content: "x".repeat(2000) }]);
  await assert.rejects(() => entries(archive.subarray(0, 1024), 512), /cut short/);
});
