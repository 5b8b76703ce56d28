/**
 * The workspace diff a report shows is a real unified diff: removed lines before the lines that
 * replace them, hunk headers that count each side's lines, a missing final line break marked; GNU
 * `patch` applies it to the old file and gets the new one, and where only one diff is possible it
 * is what GNU `diff -u` prints.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SplitMix64 } from "../../src/core/rng.ts";
import { unifiedDiff } from "../../src/report/line_diff.ts";
import { scratchDir } from "../_verdict.ts";

async function tool(command: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const output = await new Deno.Command(command, { args, stderr: "inherit" }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}

Deno.test("a changed block: its old lines first, then its new ones, under a header that counts them", () => {
  assert.equal(
    unifiedDiff("one\ntwo\nthree\nfour\n", "one\n2\n3\nfour\n"),
    "@@ -1,4 +1,4 @@\n one\n-two\n-three\n+2\n+3\n four",
  );
  assert.equal(unifiedDiff("", "new\nfile\n"), "@@ -0,0 +1,2 @@\n+new\n+file");
  assert.equal(unifiedDiff("gone\n", ""), "@@ -1 +0,0 @@\n-gone");
  assert.equal(unifiedDiff("same\n", "same\n"), "");
  assert.equal(
    unifiedDiff("last\n", "last"),
    "@@ -1 +1 @@\n-last\n+last\n\\ No newline at end of file",
  );
});

Deno.test("GNU diff -u prints the same hunks where the change is unambiguous", async () => {
  await using dir = await scratchDir("diff");
  const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`);
  const before = numbered(30);
  const after = [...before];
  after.splice(4, 2, "changed 5", "changed 6", "added");
  after.splice(25, 1);
  const [a, b] = [join(dir.path, "a"), join(dir.path, "b")];
  await Deno.writeTextFile(a, before.join("\n") + "\n");
  await Deno.writeTextFile(b, after.join("\n"));
  const gnu = await tool("diff", ["-u", a, b]);
  assert.equal(gnu.code, 1);
  const hunks = gnu.stdout.split("\n").slice(2).join("\n").trimEnd();
  assert.equal(unifiedDiff(before.join("\n") + "\n", after.join("\n")), hunks);
});

Deno.test("GNU patch turns the old file into the new one with every diff, over 200 seeded edits", async () => {
  await using dir = await scratchDir("patch");
  const rng = new SplitMix64(28);
  const words = ["a", "b", "c", "x", "", "  indented", "a"];
  const text = (count: number) =>
    Array.from({ length: count }, () => words[rng.nextInt(words.length)]).join("\n") +
    (rng.nextInt(3) === 0 ? "" : "\n");
  for (let round = 0; round < 200; round++) {
    const before = text(rng.nextInt(25));
    const lines = before.split("\n");
    for (let edit = rng.nextInt(6); edit > 0; edit--) {
      lines.splice(
        rng.nextInt(lines.length + 1),
        rng.nextInt(3),
        ...text(rng.nextInt(3)).split("\n"),
      );
    }
    const after = lines.join("\n");
    const diff = unifiedDiff(before, after, rng.nextInt(4));
    if (before === after) {
      assert.equal(diff, "");
      continue;
    }
    const [old, patch, out] = ["old", "diff", "out"].map((name) => join(dir.path, name));
    await Deno.writeTextFile(old, before);
    await Deno.writeTextFile(patch, `--- old\n+++ new\n${diff}\n`);
    const applied = await tool("patch", ["-s", "-o", out, old, patch]);
    assert.equal(applied.code, 0, `round ${round}:\n${diff}`);
    assert.equal(await Deno.readTextFile(out), after, `round ${round}:\n${diff}`);
  }
});
