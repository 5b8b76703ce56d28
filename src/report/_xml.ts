/**
 * XML 1.0 text and attribute values from arbitrary strings: markup characters escaped, terminal
 * colour codes removed, and the characters XML 1.0 forbids (other control characters, lone
 * surrogates, U+FFFE and U+FFFF) replaced with U+FFFD, so a parser never rejects the document.
 *
 * @module
 */

/** Terminal escape sequences (colours, cursor moves): noise in a CI viewer, so dropped whole. */
// deno-lint-ignore no-control-regex -- matching the escape character is the point
const TERMINAL_ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]/g;

/** Every code point outside XML 1.0's `Char` production. */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * A string as XML character data: `&`, `<` and `>` escaped, carriage returns kept as `&#13;`
 * (a parser would fold them into line feeds), forbidden characters replaced with U+FFFD.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { xmlText } from "./_xml.ts";
 * assert.equal(xmlText("a < b && \x1b[31mred\x1b[0m\x00"), "a &lt; b &amp;&amp; red\uFFFD");
 * ```
 */
export function xmlText(text: string): string {
  return allowedCharacters(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("\r", "&#13;");
}

/**
 * A string as a double-quoted XML attribute value: as {@linkcode xmlText}, with `"` escaped and
 * tabs and line breaks as character references (a parser would turn them into spaces).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { xmlAttribute } from "./_xml.ts";
 * assert.equal(xmlAttribute('say "hi"\nbye'), "say &quot;hi&quot;&#10;bye");
 * ```
 */
export function xmlAttribute(text: string): string {
  return xmlText(text)
    .replaceAll('"', "&quot;")
    .replaceAll("\n", "&#10;")
    .replaceAll("\t", "&#9;");
}

function allowedCharacters(text: string): string {
  return text.replace(TERMINAL_ESCAPE, "").replace(NOT_XML_CHAR, "\uFFFD");
}
