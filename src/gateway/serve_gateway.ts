/**
 * Serves a trial's gateway on a Unix socket, which a sidecar container reaches through a bind
 * mount (`sidecar.ts`). The socket lives in a short folder of its own under
 * {@linkcode GATEWAY_SOCKET_ROOT}, so that its path always fits the 108 bytes a Unix socket
 * address allows, whatever the state folder's path.
 *
 * @module
 */
import { join } from "node:path";
import { InfrastructureError } from "../core/errors.ts";

/**
 * Where every gateway's socket folder is made: short, so that a socket path always fits
 * (`sun_path` holds 108 bytes), and named in the CLI's permission set (deno.json `verdict`).
 */
export const GATEWAY_SOCKET_ROOT = "/tmp/verdict-gateway";

/** The name of the socket inside its folder. */
export const GATEWAY_SOCKET_NAME = "gateway.sock";

/** What answers the gateway's HTTP requests. */
export type GatewayHandler = (request: Request) => Promise<Response>;

/** A gateway being served. */
export interface ServedGateway {
  /** The folder that holds the socket (what a sidecar bind-mounts). */
  readonly folder: string;
  /** The socket's path. */
  readonly socketPath: string;
  /** Stops serving (requests under way are cut) and removes the socket and its folder. */
  close(): Promise<void>;
}

/**
 * Makes a fresh folder under `root` (default {@linkcode GATEWAY_SOCKET_ROOT}) for a gateway's
 * socket, readable by all and writable only by this process's user: what
 * {@linkcode serveGateway} serves in, made ahead when a sidecar that mounts it starts before its
 * trial.
 *
 * @example
 * ```ts ignore
 * import { reserveGatewayFolder, serveGateway } from "./serve_gateway.ts";
 * const folder = await reserveGatewayFolder();
 * const gateway = await serveGateway(() => Promise.resolve(new Response("hi")), { folder });
 * await gateway.close(); // removes the folder too
 * ```
 * @throws {InfrastructureError} when the folder cannot be made.
 */
export async function reserveGatewayFolder(root: string = GATEWAY_SOCKET_ROOT): Promise<string> {
  try {
    await Deno.mkdir(root, { recursive: true });
    // Shared like /tmp (each user's folders stay their own); another user's root stays as it is.
    await Deno.chmod(root, 0o1777).catch(() => undefined);
    const folder = await Deno.makeTempDir({ dir: root, prefix: "g" });
    await Deno.chmod(folder, 0o755);
    return folder;
  } catch (error) {
    throw new InfrastructureError(
      `could not make a folder for the model gateway's socket in ${root}: ${String(error)}`,
    );
  }
}

/**
 * Removes a folder made by {@linkcode reserveGatewayFolder}, with what is in it; gone already is
 * fine. A gateway's `close` does it; a folder reserved and never served is its reserver's.
 *
 * @example
 * ```ts ignore
 * import { releaseGatewayFolder, reserveGatewayFolder } from "./serve_gateway.ts";
 * await releaseGatewayFolder(await reserveGatewayFolder());
 * ```
 */
export async function releaseGatewayFolder(folder: string): Promise<void> {
  await Deno.remove(folder, { recursive: true }).catch(() => undefined);
}

/** Where {@linkcode serveGateway} serves, and what it says of dropped requests. */
export interface ServeOptions {
  /** A fresh folder is made under this root (default {@linkcode GATEWAY_SOCKET_ROOT}). */
  root?: string;
  /** Or this folder, reserved with {@linkcode reserveGatewayFolder}, is served in. */
  folder?: string;
  /** Where a line about a failed request goes (default: standard error). */
  report?: (line: string) => void;
}

/**
 * Serves `handler` on a new socket in a fresh folder under `options.root` (default
 * {@linkcode GATEWAY_SOCKET_ROOT}), or in the reserved `options.folder`. The socket is open to
 * every user (mode 0666), so that the unprivileged agent user of a container reaches it; the folder is readable by all and writable
 * only by this process's user. A request that fails under the handler (its client gone mid-body)
 * is one line to `options.report`.
 *
 * @example
 * ```ts ignore
 * // Serving a Unix socket needs net access to `unix:PATH` (the doc tests' permission set has
 * // none); tests/gateway/serve_gateway_test.ts runs this.
 * import assert from "node:assert/strict";
 * import { serveGateway } from "./serve_gateway.ts";
 * const gateway = await serveGateway(() => Promise.resolve(new Response("hi")));
 * const client = Deno.createHttpClient({ proxy: { transport: "unix", path: gateway.socketPath } });
 * const answer = await fetch("http://gateway/v1/models", { client });
 * assert.equal(await answer.text(), "hi");
 * client.close();
 * await gateway.close();
 * ```
 * @throws {InfrastructureError} when the socket cannot be made.
 */
export async function serveGateway(
  handler: GatewayHandler,
  options: ServeOptions = {},
): Promise<ServedGateway> {
  const report = options.report ?? ((line: string) => console.error(line));
  const folder = options.folder ?? await reserveGatewayFolder(options.root);
  const socketPath = join(folder, GATEWAY_SOCKET_NAME);
  const controller = new AbortController();
  let server: Deno.HttpServer<Deno.UnixAddr>;
  try {
    server = Deno.serve({
      transport: "unix",
      path: socketPath,
      signal: controller.signal,
      onListen: () => {},
      // A client that hangs up mid-request (a body dripped, then dropped), or a gateway closing
      // under one: a line that says so, not a stack trace per request.
      onError: (error) => {
        if (isDropped(error)) {
          report(
            `the model gateway dropped a request: its connection closed before the ` +
              `request was whole (${(error as Error).message})`,
          );
          return new Response(null, { status: 400 });
        }
        report(`the model gateway failed on a request: ${(error as Error)?.stack ?? error}`);
        return new Response(null, { status: 500 });
      },
    }, handler);
    await Deno.chmod(socketPath, 0o666);
  } catch (error) {
    await releaseGatewayFolder(folder);
    throw new InfrastructureError(
      `could not serve the model gateway on ${socketPath}: ${String(error)}`,
    );
  }
  let closing: Promise<void> | undefined;
  return {
    folder,
    socketPath,
    close() {
      closing ??= (async () => {
        controller.abort();
        await server.finished.catch(() => undefined);
        await releaseGatewayFolder(folder);
      })();
      return closing;
    },
  };
}

// What a client gone mid-request looks like from here.
function isDropped(error: unknown): boolean {
  return error instanceof Deno.errors.BadResource || error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.Interrupted ||
    /unavailable|connection (closed|reset)|body.*(closed|aborted)/i.test(String(error));
}
