/**
 * The viewer's server: Deno's own, bound to 127.0.0.1, read-only over one open store. A page on
 * another site cannot read it: every request must name the server by its loopback address in
 * `Host` (no DNS rebinding) and carry the token printed at start, first in the address (traded at
 * once for a same-site, script-proof cookie and dropped from the address), then in that cookie.
 *
 * @module
 */
import type { Store } from "../store/store.ts";
import { runsView, runView, trialView } from "./view_data.ts";
import { renderViewerPage, VIEWER_CSP } from "./viewer_page.ts";

/** How to start a viewer. */
export interface ViewerOptions {
  /** The store it reads (open it read-only). */
  store: Store;
  /** The secret every request must carry. */
  token: string;
  /** The port; 0 (the default) picks a free one. */
  port?: number;
  /** Stops the server when aborted. */
  signal?: AbortSignal;
}

/** A running viewer. */
export interface Viewer {
  /** Its origin, `http://127.0.0.1:PORT`. */
  origin: string;
  /** The address to open: the origin with the token. */
  url: string;
  /** Settles when the server has stopped. */
  finished: Promise<void>;
}

/**
 * Starts a viewer on 127.0.0.1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { startViewer } from "./viewer_server.ts";
 * const controller = new AbortController();
 * const viewer = startViewer({ store: openStore(":memory:"), token: "t0k3n", signal: controller.signal });
 * const refused = await fetch(`${viewer.origin}/api/runs`);
 * assert.equal(refused.status, 401);
 * await refused.body?.cancel();
 * controller.abort();
 * await viewer.finished;
 * ```
 */
export function startViewer(options: ViewerOptions): Viewer {
  let handle: (request: Request) => Response = () => new Response(null, { status: 503 });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    signal: options.signal,
    onListen: () => {},
  }, (request) => handle(request));
  const port = server.addr.port;
  handle = viewerHandler(options.store, options.token, port);
  const origin = `http://127.0.0.1:${port}`;
  return { origin, url: `${origin}/?token=${options.token}`, finished: server.finished };
}

/**
 * The viewer's request handler for a server on `port`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { viewerHandler } from "./viewer_server.ts";
 * const handle = viewerHandler(openStore(":memory:"), "s3cret", 8000);
 * const rebound = new Request("http://127.0.0.1:8000/?token=s3cret", {
 *   headers: { host: "evil.example:8000" },
 * });
 * assert.equal(handle(rebound).status, 421);
 * ```
 */
export function viewerHandler(
  store: Store,
  token: string,
  port: number,
): (request: Request) => Response {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const cookie = `verdict_view_${port}`;
  return (request) => {
    if (!hosts.has(request.headers.get("host") ?? "")) {
      return text(421, `this viewer answers only as 127.0.0.1:${port} (Host header refused)`);
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return text(405, "the viewer is read-only: GET only", { allow: "GET, HEAD" });
    }
    const url = new URL(request.url);
    const given = url.searchParams.get("token");
    if (given !== null) {
      if (!sameSecret(given, token)) return text(401, "wrong token: " + ASK_FOR_TOKEN);
      url.searchParams.delete("token");
      return new Response(null, {
        status: 303,
        headers: {
          ...COMMON_HEADERS,
          location: url.pathname + url.search,
          "set-cookie": `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        },
      });
    }
    if (!sameSecret(cookieValue(request, cookie) ?? "", token)) return text(401, ASK_FOR_TOKEN);
    return answer(store, url.pathname);
  };
}

const ASK_FOR_TOKEN = "open the address 'verdict view' printed: it carries the token";

const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

function answer(store: Store, path: string): Response {
  if (path === "/") {
    return new Response(renderViewerPage(), {
      headers: {
        ...COMMON_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": `${VIEWER_CSP}; frame-ancestors 'none'`,
      },
    });
  }
  const [, api, kind, id, ...rest] = path.split("/");
  if (api !== "api" || rest.length > 0) return text(404, `no page ${path}`);
  let name: string;
  try {
    name = decodeURIComponent(id ?? "");
  } catch {
    return text(404, `no page ${path}`);
  }
  try {
    const data = kind === "runs" && id === undefined
      ? runsView(store)
      : kind === "runs"
      ? runView(store, name)
      : kind === "trials"
      ? trialView(store, name)
      : undefined;
    if (data === undefined) return text(404, `no ${kind === "trials" ? "trial" : "run"} '${name}'`);
    return new Response(JSON.stringify(data), {
      headers: { ...COMMON_HEADERS, "content-type": "application/json" },
    });
  } catch (error) {
    return text(500, `reading ${store.path}: ${(error as Error).message}`);
  }
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body + "\n", {
    status,
    headers: { ...COMMON_HEADERS, ...headers, "content-type": "text/plain; charset=utf-8" },
  });
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

// Compared in time that does not depend on where the strings differ.
function sameSecret(given: string, secret: string): boolean {
  let differ = given.length ^ secret.length;
  for (let i = 0; i < secret.length; i++) {
    differ |= secret.charCodeAt(i) ^ (given.charCodeAt(i) | 0);
  }
  return differ === 0;
}
