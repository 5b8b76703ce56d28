import assert from "node:assert/strict";
import { hashCanonical, isSha256Hex, Sha256, sha256Hex } from "../../src/core/hash.ts";
import { deriveId } from "../../src/core/ids.ts";

Deno.test("sha256 matches the FIPS 180-2 test vector", () => {
  assert.deepEqual(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.deepEqual(
    new Sha256().update("a").update(new Uint8Array([98, 99])).hex(),
    sha256Hex("abc"),
  );
  assert.deepEqual(isSha256Hex(sha256Hex("")), true);
});

Deno.test("canonical hashes ignore key order", () => {
  assert.deepEqual(hashCanonical({ a: 1, b: [1, 2] }), hashCanonical({ b: [1, 2], a: 1 }));
  assert.notDeepEqual(hashCanonical({ a: 1, b: [1, 2] }), hashCanonical({ a: 1, b: [2, 1] }));
});

Deno.test("ids depend on the tag and the preimage, not on key order", () => {
  const id = deriveId("verdict.run/1", { seed: 1, tasks: ["a", "b"] });
  assert.deepEqual(id, deriveId("verdict.run/1", { tasks: ["a", "b"], seed: 1 }));
  assert.deepEqual(id.length, 12);
  assert.notDeepEqual(id, deriveId("verdict.run/2", { seed: 1, tasks: ["a", "b"] }));
  assert.notDeepEqual(id, deriveId("verdict.run/1", { seed: 2, tasks: ["a", "b"] }));
  assert.deepEqual(
    id,
    sha256Hex('verdict.run/1\n{"seed":1,"tasks":["a","b"]}').slice(0, 12),
  );
});

Deno.test("ids refuse a tag without a version and absurd lengths", () => {
  assert.throws(() => deriveId("run", {}), { name: "TypeError", message: /verdict\.kind\/1/ });
  assert.throws(() => deriveId("verdict.run/1", {}, 4), RangeError);
});
