import assert from "node:assert/strict";
import { editDistance, nearest } from "../../src/core/suggest.ts";

Deno.test("edit distance counts insertions, deletions, substitutions and transpositions", () => {
  assert.deepEqual(editDistance("", "abc"), 3);
  assert.deepEqual(editDistance("kitten", "sitting"), 3);
  assert.deepEqual(editDistance("repaet", "repeat"), 1);
});

Deno.test("nearest suggests likely typos and prefixes, and nothing for unrelated input", () => {
  assert.deepEqual(nearest("--repet", ["--repeat", "--seed"]), "--repeat");
  assert.deepEqual(nearest("comp", ["compare", "verify"]), "compare");
  assert.deepEqual(nearest("frobnicate", ["compare", "verify"]), undefined);
});
