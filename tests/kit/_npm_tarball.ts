/**
 * Test helpers: npm package tarballs written the way `npm pack` writes them (a gzip-compressed
 * ustar archive whose entries lie under `package/`), and a fake npm registry on 127.0.0.1 that
 * serves them with their metadata.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { KitRecipe } from "../../src/kit/kit_catalogue.ts";

/** One file of a tarball. */
export interface TarFile {
  /** Its path inside the archive, such as `package/package.json`. */
  path: string;
  /** Its content. */
  content: Uint8Array | string;
  /** Its permission bits (default 0644). */
  mode?: number;
}

/** A tar archive of the files, uncompressed (paths over 100 bytes use the ustar prefix). */
export function tarArchive(files: readonly TarFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const file of files) {
    const content = typeof file.content === "string"
      ? new TextEncoder().encode(file.content)
      : file.content;
    parts.push(header(file.path, content.length, file.mode ?? 0o644), content);
    parts.push(new Uint8Array((512 - (content.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  return concat(parts);
}

/** A gzip-compressed tar archive of the files. */
export async function gzipTar(files: readonly TarFile[]): Promise<Uint8Array> {
  return await gzip(tarArchive(files));
}

/** Bytes compressed with gzip. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = ReadableStream.from([bytes]).pipeThrough(
    new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** An npm package tarball: `package/package.json` with the name and version, then the files. */
export async function npmTarball(
  name: string,
  version: string,
  files: readonly TarFile[] = [],
): Promise<Uint8Array> {
  return await gzipTar([
    ...files,
    { path: "package/package.json", content: JSON.stringify({ name, version }) },
  ]);
}

/** The SRI `sha512-...` string of bytes, as a registry's `dist.integrity` holds it. */
export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** One package version a {@linkcode fakeRegistry} serves. */
export interface ServedPackage {
  name: string;
  version: string;
  tarball: Uint8Array;
  /** The `dist.integrity` served; default the tarball's own. */
  integrity?: string;
  /** Serve half of the tarball, then hang until the registry shuts down. */
  hang?: boolean;
}

/** A fake npm registry: its URL, how many times each tarball was downloaded, and its shutdown. */
export interface FakeRegistry {
  url: string;
  downloads: Map<string, number>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves package versions at `/<name with %2f>/<version>` and their tarballs, on 127.0.0.1. */
export function fakeRegistry(packages: readonly ServedPackage[]): FakeRegistry {
  const downloads = new Map<string, number>();
  const hanging: ReadableStreamDefaultController<Uint8Array>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const tarball = /^\/tarballs\/(\d+)\.tgz$/.exec(path);
    if (tarball) {
      const served = packages[Number(tarball[1])];
      const key = `${served.name}@${served.version}`;
      downloads.set(key, (downloads.get(key) ?? 0) + 1);
      if (!served.hang) return new Response(served.tarball.slice());
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(served.tarball.slice(0, served.tarball.length / 2));
            hanging.push(controller);
          },
        }),
      );
    }
    const index = packages.findIndex((served) => path === `/${served.name}/${served.version}`);
    if (index < 0) return Response.json({ error: "Not found" }, { status: 404 });
    const served = packages[index];
    const origin = new URL(request.url).origin;
    return Response.json({
      name: served.name,
      version: served.version,
      dist: {
        tarball: `${origin}/tarballs/${index}.tgz`,
        integrity: served.integrity ?? integrityOf(served.tarball),
      },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    downloads,
    [Symbol.asyncDispose]: async () => {
      for (const controller of hanging) controller.error(new Error("registry shut down"));
      await server.shutdown();
    },
  };
}

function header(path: string, size: number, mode: number): Uint8Array {
  const block = new Uint8Array(512);
  const encoder = new TextEncoder();
  let name = path;
  let prefix = "";
  if (path.length > 100) {
    const cut = path.lastIndexOf("/", 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  const put = (offset: number, text: string) => block.set(encoder.encode(text), offset);
  put(0, name);
  put(100, mode.toString(8).padStart(7, "0"));
  put(108, "0000000");
  put(116, "0000000");
  put(124, size.toString(8).padStart(11, "0"));
  put(136, "00000000000");
  put(156, "0");
  put(257, "ustar\0");
  put(263, "00");
  put(345, prefix);
  put(148, "        ");
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The tarballs of an agent's kit at a version: the main package, and the platform package. */
export interface KitTarballs {
  main: ServedPackage;
  platform: ServedPackage;
  /** The binary inside the platform package (a copy of /bin/true, a real ELF executable). */
  binary: Uint8Array;
  /** The recipe's companion files inside the platform package, by name in the kit's folder. */
  companions: Map<string, Uint8Array>;
}

/**
 * Builds the two npm tarballs of an agent's kit, its binary a copy of /bin/true, each companion
 * file a line naming it; `leaveOut` names companions (by kit name) the platform package lacks.
 */
export async function kitTarballs(
  recipe: KitRecipe,
  version: string,
  leaveOut: readonly string[] = [],
): Promise<KitTarballs> {
  const binary = await Deno.readFile("/bin/true");
  const platform = recipe.platformPackage(version);
  const kept = recipe.companions.filter((companion) => !leaveOut.includes(companion.name));
  const companions = new Map(
    kept.map(({ name }) => [name, new TextEncoder().encode(`companion ${name}\n`)]),
  );
  return {
    main: {
      name: recipe.package,
      version,
      tarball: await npmTarball(recipe.package, version, [
        { path: "package/bin/wrapper.js", content: "// the npm wrapper\n" },
      ]),
    },
    platform: {
      ...platform,
      tarball: await npmTarball(platform.name, platform.version, [
        { path: "package/README.md", content: "native binary\n" },
        { path: recipe.binaryPath, content: binary, mode: 0o755 },
        ...kept.map(({ path, name }) => ({ path, content: companions.get(name)!, mode: 0o755 })),
        { path: "package/vendor/x86_64-unknown-linux-musl/bin/bwrap", content: "not kept\n" },
      ]),
    },
    binary,
    companions,
  };
}
