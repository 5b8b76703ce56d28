import assert from "node:assert/strict";
import { canonicalBytes, canonicalJson } from "../../src/core/canonical_json.ts";

Deno.test("canonical JSON sorts keys at every depth and drops whitespace", () => {
  const value = { z: 1, a: { y: [3, { c: true, b: null }], x: "é\n" } };
  assert.deepEqual(canonicalJson(value), '{"a":{"x":"é\\n","y":[3,{"b":null,"c":true}]},"z":1}');
});

Deno.test("canonical JSON is the same for objects built in a different key order", () => {
  const one: Record<string, number> = {};
  one.b = 2;
  one.a = 1;
  assert.deepEqual(canonicalJson(one), canonicalJson({ a: 1, b: 2 }));
});

Deno.test("canonical JSON sorts keys by UTF-16 code units", () => {
  assert.deepEqual(canonicalJson({ "é": 1, "z": 2, "A": 3 }), '{"A":3,"z":2,"é":1}');
});

Deno.test("canonical JSON writes numbers as JSON does, -0 as 0", () => {
  assert.deepEqual(canonicalJson([1.5, -0, 1e21, 0.1]), "[1.5,0,1e+21,0.1]");
});

Deno.test("canonical JSON refuses NaN, Infinity and undefined, naming where", () => {
  assert.throws(() => canonicalJson({ a: NaN }), { name: "TypeError", message: /NaN\ at\ \$\.a/ });
  assert.throws(() => canonicalJson([1, Infinity]), {
    name: "TypeError",
    message: /Infinity\ at\ \$\[1\]/,
  });
  assert.throws(() => canonicalJson({ a: undefined }), {
    name: "TypeError",
    message: /undefined\ at\ \$\.a/,
  });
  assert.throws(() => canonicalJson([undefined]), { name: "TypeError", message: /undefined/ });
});

Deno.test("canonical JSON refuses cycles but accepts shared references", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => canonicalJson(cycle), { name: "TypeError", message: /cycle\ at\ \$\.self/ });
  const shared = { x: 1 };
  assert.deepEqual(canonicalJson([shared, shared]), '[{"x":1},{"x":1}]');
});

Deno.test("canonical JSON refuses functions, bigints, symbols and class instances", () => {
  assert.throws(() => canonicalJson({ f: () => 1 }), { name: "TypeError", message: /function/ });
  assert.throws(() => canonicalJson(1n), { name: "TypeError", message: /bigint/ });
  assert.throws(() => canonicalJson(Symbol("s")), { name: "TypeError", message: /symbol/ });
  assert.throws(() => canonicalJson(new Map()), { name: "TypeError", message: /Map/ });
  assert.throws(() => canonicalJson({ d: new Date(0) }), { name: "TypeError", message: /Date/ });
});

Deno.test("canonical bytes are the UTF-8 of canonical JSON", () => {
  assert.deepEqual([...canonicalBytes({ k: "é" })], [...new TextEncoder().encode('{"k":"é"}')]);
});
