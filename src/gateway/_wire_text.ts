/**
 * Text out of the content forms the three formats share: a plain string, or a list of parts of
 * which the text parts count (`text`, `input_text`, `output_text`); other parts (images, files)
 * are left out, since Verdict's conversation is text.
 *
 * @module
 */
import { isObject, WireRequestError } from "./_wire_fields.ts";

const TEXT_PARTS = new Set(["text", "input_text", "output_text"]);

/**
 * The text of a content field: a string, null (empty), or a list of parts joined by newlines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentText } from "./_wire_text.ts";
 * assert.equal(contentText([{ type: "text", text: "a" }, { type: "image" }, "b"], "content"), "a\nb");
 * ```
 *
 * @throws {WireRequestError} when it is none of these, or a text part has no text.
 */
export function contentText(value: unknown, field: string): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (!Array.isArray(value)) {
    throw new WireRequestError(field, "must be a string or a list of content parts");
  }
  const texts: string[] = [];
  value.forEach((part, index) => {
    if (typeof part === "string") texts.push(part);
    else if (!isObject(part)) {
      throw new WireRequestError(`${field}[${index}]`, "must be a content part object");
    } else if (TEXT_PARTS.has(part.type as string)) {
      if (typeof part.text !== "string") {
        throw new WireRequestError(`${field}[${index}].text`, "is missing (expected a string)");
      }
      texts.push(part.text);
    }
  });
  return texts.join("\n");
}
