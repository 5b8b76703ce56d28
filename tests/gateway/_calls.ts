import type { GatewayAnswer, GatewayCall, WireFormat } from "../../src/gateway/gateway.ts";

/** A hand-made call: `body` as JSON text, the request read into Verdict's form left empty. */
export function gatewayCall(
  number: number,
  format: WireFormat,
  body: Record<string, unknown>,
  stream = false,
): GatewayCall {
  return {
    number,
    format,
    stream,
    model: String(body.model ?? "m"),
    body: JSON.stringify(body),
    request: { system: "", messages: [], tools: [], maxOutputTokens: 100 },
  };
}

/** A 200 JSON answer with a usage. */
export function okAnswer(input: number, output: number, body = "{}"): GatewayAnswer {
  return {
    status: 200,
    contentType: "application/json",
    body,
    usage: { input, cachedInput: 0, output },
  };
}
