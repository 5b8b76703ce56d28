import assert from "node:assert/strict";
import {
  NonUtf8NameError,
  packOwnedTar,
  packTar,
  parseTar,
  readTarStream,
  type TarEntry,
  type TarEntryHeader,
} from "../../src/engine/tar.ts";
import { requireDocker } from "../_docker.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("tar round trip keeps files, modes, folders, symlinks and long names", () => {
  const long = `${"deep/".repeat(30)}file-with-a-long-name.txt`;
  const entries: TarEntry[] = [
    { path: "src", type: "dir", mode: 0o755 },
    { path: "src/run.sh", type: "file", mode: 0o755, data: bytes("#!/bin/sh\necho hi\n") },
    { path: "src/empty", type: "dir", mode: 0o700 },
    { path: "link", type: "symlink", target: "src/run.sh" },
    { path: "far", type: "symlink", target: `${"../".repeat(40)}etc/passwd` },
    { path: long, type: "file", mode: 0o600, data: new Uint8Array(1500).fill(7) },
    { path: "ünïcode.txt", type: "file", mode: 0o644, data: bytes("é") },
  ];
  const tar = packTar(entries, { uid: 1000, gid: 1000 });
  assert.equal(tar.length % 512, 0);
  assert.deepEqual(parseTar(tar), entries);
});

Deno.test("busybox tar in a container reads what we pack, owners included", async () => {
  await requireDocker();
  const tar = packOwnedTar([
    {
      entries: [{ path: "a.txt", type: "file", mode: 0o640, data: bytes("x") }],
      options: { uid: 1000, gid: 1000 },
    },
    { entries: [{ path: "b", type: "dir", mode: 0o755 }], options: { uid: 0, gid: 0 } },
  ]);
  const child = new Deno.Command("docker", {
    args: ["run", "--rm", "-i", "--network=none", "verdict/busybox", "tar", "-tvf", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(tar);
  await writer.close();
  const output = await child.output();
  const listing = new TextDecoder().decode(output.stdout);
  assert.match(listing, /-rw-r----- 1000\/1000\s+1 .* a\.txt/);
  assert.match(listing, /drwxr-xr-x 0\/0\s+0 .* b\//);
});

Deno.test("parsing refuses a corrupted header and resolves hard links", () => {
  const tar = packTar([{ path: "a", type: "file", mode: 0o644, data: bytes("abc") }]);
  const corrupt = tar.slice();
  corrupt[10] ^= 1;
  assert.throws(() => parseTar(corrupt), /checksum mismatch/);
  // A hard link (typeflag 1) to "a", written by hand.
  const link = packTar([{ path: "b", type: "symlink", target: "a" }]).slice(0, 512);
  link[156] = "1".charCodeAt(0);
  fixChecksum(link);
  const joined = new Uint8Array(tar.length - 1024 + 512 + 1024);
  joined.set(tar.subarray(0, tar.length - 1024));
  joined.set(link, tar.length - 1024);
  const parsed = parseTar(joined);
  assert.deepEqual(parsed[1], { path: "b", type: "file", mode: 0o644, data: bytes("abc") });
});

/** Rewrites a header's checksum after its bytes were edited by hand. */
function fixChecksum(header: Uint8Array): void {
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(bytes(sum.toString(8).padStart(6, "0") + "\0 "), 148);
}

Deno.test("a name that is not UTF-8 is refused, naming its bytes; other PAX records may hold any", () => {
  const tar = packTar([{ path: "odd_", type: "file", mode: 0o644, data: bytes("x") }]);
  const odd = tar.slice();
  odd[3] = 0xff;
  fixChecksum(odd.subarray(0, 512));
  assert.throws(
    () => parseTar(odd),
    (error: Error) => error instanceof NonUtf8NameError && /'odd\\xff'/.test(error.message),
  );

  // A PAX header with a binary extended attribute, then the file it describes.
  const record = (key: string, value: Uint8Array) => {
    const body = [...bytes(` ${key}=`), ...value, 0x0a];
    let length = body.length + 1;
    while (String(length).length + body.length !== length) {
      length = String(length).length + body.length;
    }
    return new Uint8Array([...bytes(String(length)), ...body]);
  };
  const pax = record("SCHILY.xattr.user.blob", new Uint8Array([0xff, 0xfe, 0x00]));
  const paxHeader = packTar([{ path: "PaxHeader", type: "file", mode: 0o644, data: pax }]);
  paxHeader[156] = "x".charCodeAt(0);
  fixChecksum(paxHeader.subarray(0, 512));
  const joined = new Uint8Array(paxHeader.length - 1024 + tar.length);
  joined.set(paxHeader.subarray(0, paxHeader.length - 1024));
  joined.set(tar, paxHeader.length - 1024);
  assert.deepEqual(parseTar(joined), [{
    path: "odd_",
    type: "file",
    mode: 0o644,
    data: bytes("x"),
  }]);

  const badPath = record("path", new Uint8Array([0x61, 0xc3]));
  const pathHeader = packTar([{ path: "PaxHeader", type: "file", mode: 0o644, data: badPath }]);
  pathHeader[156] = "x".charCodeAt(0);
  fixChecksum(pathHeader.subarray(0, 512));
  joined.set(pathHeader.subarray(0, pathHeader.length - 1024));
  assert.throws(() => parseTar(joined), NonUtf8NameError);
});

/** A stream of `bytes` in chunks of `size` bytes, counting how many were pulled. */
function chunked(bytes: Uint8Array, size: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
} {
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
  return { stream, pulled: () => offset };
}

Deno.test("a tar stream parses the same in chunks of any size, long names included", async () => {
  const long = `${"deep/".repeat(30)}file.txt`;
  const entries: TarEntry[] = [
    { path: "dir", type: "dir", mode: 0o755 },
    { path: long, type: "file", mode: 0o600, data: new Uint8Array(1500).fill(7) },
    { path: "empty", type: "file", mode: 0o644, data: new Uint8Array(0) },
    { path: "link", type: "symlink", target: "x".repeat(150) },
  ];
  const tar = packTar(entries);
  for (const size of [1, 7, 512, 513, 4096, tar.length]) {
    assert.deepEqual(await readTarStream(chunked(tar, size).stream), entries, `chunks of ${size}`);
  }
});

Deno.test("a tar stream stops at the first entry refused, before reading its bytes", async () => {
  const big = new Uint8Array(1024 * 1024);
  const tar = packTar([
    { path: "small", type: "file", mode: 0o644, data: bytes("hi") },
    { path: "big", type: "file", mode: 0o644, data: big },
    { path: "after", type: "file", mode: 0o644, data: bytes("never read") },
  ]);
  const source = chunked(tar, 4096);
  const seen: TarEntryHeader[] = [];
  await assert.rejects(
    readTarStream(source.stream, (entry) => {
      seen.push(entry);
      if (entry.size > 1000) throw new Error(`${entry.path} is ${entry.size} bytes`);
    }),
    /big is 1048576 bytes/,
  );
  assert.deepEqual(seen.map((entry) => entry.path), ["small", "big"]);
  assert.ok(source.pulled() <= 8192, `pulled ${source.pulled()} bytes of a refused megabyte`);
});

Deno.test("a PAX size record gives a file's size, as docker cp writes one past 8 GiB", async () => {
  // A PAX header whose `size` record says 1500, then a file header whose own size field says 0.
  const data = new Uint8Array(1500).fill(7);
  const tar = packTar([
    { path: "big", type: "file", mode: 0o644, data },
    { path: "after", type: "file", mode: 0o644, data: bytes("x") },
  ]);
  const paxHeader = packTar([{
    path: "PaxHeader",
    type: "file",
    mode: 0o644,
    data: bytes("13 size=1500\n"),
  }]);
  paxHeader[156] = "x".charCodeAt(0);
  fixChecksum(paxHeader.subarray(0, 512));
  const fileHeader = tar.slice(0, 512);
  fileHeader.set(bytes("00000000000\0"), 124);
  fixChecksum(fileHeader);
  const joined = new Uint8Array(1024 + tar.length);
  joined.set(paxHeader.subarray(0, 1024));
  joined.set(fileHeader, 1024);
  joined.set(tar.subarray(512), 1536);
  const expected = [
    { path: "big", type: "file", mode: 0o644, data },
    { path: "after", type: "file", mode: 0o644, data: bytes("x") },
  ];
  assert.deepEqual(parseTar(joined), expected);
  const seen: TarEntryHeader[] = [];
  const entries = await readTarStream(chunked(joined, 700).stream, (entry) => seen.push(entry));
  assert.deepEqual(entries, expected);
  assert.deepEqual(seen.map((entry) => entry.size), [1500, 1]);
});
