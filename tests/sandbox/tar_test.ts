import assert from "node:assert/strict";
import { packOwnedTar, packTar, parseTar, type TarEntry } from "../../src/sandbox/tar.ts";
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
  link.fill(0x20, 148, 156);
  const sum = link.reduce((total, byte) => total + byte, 0);
  link.set(bytes(sum.toString(8).padStart(6, "0") + "\0 "), 148);
  const joined = new Uint8Array(tar.length - 1024 + 512 + 1024);
  joined.set(tar.subarray(0, tar.length - 1024));
  joined.set(link, tar.length - 1024);
  const parsed = parseTar(joined);
  assert.deepEqual(parsed[1], { path: "b", type: "file", mode: 0o644, data: bytes("abc") });
});
