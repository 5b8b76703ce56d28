import assert from "node:assert/strict";
import { utf8Length } from "../../src/core/utf8_length.ts";

Deno.test("utf8Length counts as TextEncoder encodes: ASCII, accents, CJK, emoji, lone surrogates", () => {
  const samples = [
    "",
    "plain ASCII with\nnewlines and \u0000 a NUL",
    "façade naïve",
    "漢字かな交じり文",
    "emoji 😀👍🏽 and flags 🇫🇷",
    "lone \ud800 high, lone \udc00 low, pair \ud83d\ude00, high at the end \ud83d",
    JSON.stringify({ content: "x".repeat(10_000) + "é" }),
  ];
  for (const sample of samples) {
    assert.equal(utf8Length(sample), new TextEncoder().encode(sample).byteLength, sample);
  }
});
