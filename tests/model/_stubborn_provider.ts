/**
 * A provider that misbehaves below HTTP, on a raw TCP socket on 127.0.0.1: it accepts requests
 * and never answers, answers with a body that drips forever, or answers the first request with a
 * keep-alive connection and then drops every later one after reading it. It counts the requests
 * that really reached it.
 *
 * @module
 */

/** How the provider misbehaves. */
export type Misbehaviour =
  /** Reads each request and never answers. */
  | "hang"
  /** Answers 200 with headers at once, then one byte of body every 200 ms, forever. */
  | "drip"
  /** Answers the first request (keep-alive), then reads each later one and drops the connection. */
  | "drop-after-first";

/** Starts the provider; dispose it to close every socket. */
export function stubbornProvider(misbehaviour: Misbehaviour, firstBody = "{}"): {
  url: string;
  /** Requests read in full. */
  readonly requests: number;
  /** When each request was read in full (`performance.now()`). */
  readonly arrivals: readonly number[];
  [Symbol.asyncDispose](): Promise<void>;
} {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections = new Set<Deno.Conn>();
  const serving = new Set<Promise<void>>();
  let requests = 0;
  const arrivals: number[] = [];
  let closed = false;
  const encoder = new TextEncoder();
  const serve = async (conn: Deno.Conn) => {
    connections.add(conn);
    const buffer = new Uint8Array(65_536);
    let pending = "";
    try {
      while (!closed) {
        const read = await conn.read(buffer);
        if (read === null) break;
        pending += new TextDecoder().decode(buffer.subarray(0, read));
        const headEnd = pending.indexOf("\r\n\r\n");
        if (headEnd < 0) continue;
        const length = Number(/content-length:\s*(\d+)/i.exec(pending.slice(0, headEnd))?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) continue;
        pending = pending.slice(headEnd + 4 + length);
        requests++;
        arrivals.push(performance.now());
        if (misbehaviour === "hang") continue;
        if (misbehaviour === "drip") {
          await conn.write(encoder.encode(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
          ));
          while (!closed) {
            await conn.write(encoder.encode("1\r\n \r\n"));
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          break;
        }
        if (requests === 1) {
          await conn.write(encoder.encode(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${
              encoder.encode(firstBody).length
            }\r\nconnection: keep-alive\r\n\r\n${firstBody}`,
          ));
          continue;
        }
        break;
      }
    } catch {
      // The client went away.
    } finally {
      connections.delete(conn);
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) serving.add(serve(conn));
    } catch {
      // The listener was closed.
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    get requests() {
      return requests;
    },
    arrivals,
    async [Symbol.asyncDispose]() {
      closed = true;
      listener.close();
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      await accepting;
      await Promise.all(serving);
    },
  };
}
