/**
 * The key a command signs runs with: `VERDICT_SIGNING_KEY` (the key itself, for CI), or else your
 * own key in `$HOME/.config/verdict/signing-key`, made on first use, when this command's
 * permissions name that folder (the installed `verdict` does; see DECISIONS.md). A command whose
 * permissions do not name it signs nothing; one whose permissions reach it only in part is
 * refused (exit 2) naming the permission it lacks, never with a Deno permission error.
 *
 * @module
 */
import { join } from "node:path";
import { keyFingerprint, type SigningKey, signingKey } from "../core/ed25519.ts";
import { UsageError } from "../core/errors.ts";
import type { Io } from "./io.ts";

/** The variable that holds the key runs are signed with. */
export const SIGNING_KEY_VARIABLE = "VERDICT_SIGNING_KEY";

/**
 * Your signing key's folder, under `HOME`: the folder the installed command's permissions name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryIo } from "./io.ts";
 * import { keyFolder } from "./signing_key.ts";
 * assert.equal(keyFolder(memoryIo({ HOME: "/home/ada" })), "/home/ada/.config/verdict");
 * ```
 */
export function keyFolder(io: Io): string | undefined {
  const home = io.env("HOME");
  return home ? join(home, ".config", "verdict") : undefined;
}

/**
 * The key runs are signed with: `VERDICT_SIGNING_KEY`, else your key file (made when missing),
 * else none when this command's permissions do not name your key folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryIo } from "./io.ts";
 * import { signingKeyFor } from "./signing_key.ts";
 * assert.equal(await signingKeyFor(memoryIo({ HOME: "/home/ada" })), undefined);
 * ```
 * @throws {UsageError} naming the variable or the file and the fix, when the key is malformed,
 * readable by others, or reachable only in part by this command's permissions (exit 2).
 */
export async function signingKeyFor(io: Io): Promise<SigningKey | undefined> {
  const text = io.env(SIGNING_KEY_VARIABLE);
  if (text !== undefined && text !== "") return await parsedKey(text, SIGNING_KEY_VARIABLE);
  const folder = keyFolder(io);
  if (folder === undefined) return undefined;
  const [read, write] = [io.may("read", folder), io.may("write", folder)];
  if (!read && !write) return undefined;
  const file = join(folder, "signing-key");
  if (!read) throw unreachable(folder, file, "--allow-read");
  requirePrivateFolder(folder);
  const existing = readKeyFile(file);
  if (existing !== undefined) return await parsedKey(existing, file);
  if (!write) throw unreachable(folder, file, "--allow-write");
  return await createKeyFile(io, folder, file);
}

// A folder others may write lets them put their key in place of yours.
function requirePrivateFolder(folder: string): void {
  let mode: number | null;
  try {
    mode = Deno.statSync(folder).mode;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (mode === null || (mode & 0o022) === 0) return;
  throw new UsageError(
    `your signing key's folder ${folder} can be written by other users (mode ${
      (mode & 0o777).toString(8)
    }): whoever writes it can replace your key. Fix: chmod 700 ${folder}`,
  );
}

// The key file's text; undefined when there is none yet.
function readKeyFile(file: string): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new UsageError(
      `your signing key ${file} can be read by other users (mode ${
        (info.mode & 0o777).toString(8)
      }): whoever reads it can sign runs as you. Fix: chmod 600 ${file}`,
    );
  }
  try {
    return Deno.readTextFileSync(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    throw new UsageError(
      `cannot read your signing key ${file}: the file system refuses it. Fix: make it yours ` +
        `(chown) with mode 600, or set ${SIGNING_KEY_VARIABLE}`,
    );
  }
}

// A new key, written where only you can read it. Key generation is the one place where platform
// entropy is the point: the key is an input to every record, never derived from one.
async function createKeyFile(io: Io, folder: string, file: string): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const text = btoa(String.fromCharCode(...pkcs8)) + "\n";
  Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: another verdict never reads half a key, and of two
  // made at once, the first link wins and both sign with it.
  const staged = Deno.makeTempFileSync({ dir: folder, prefix: ".signing-key-" });
  try {
    Deno.chmodSync(staged, 0o600);
    // On disk before it is linked into place: a crash never leaves an empty key.
    const handle = Deno.openSync(staged, { write: true });
    try {
      handle.writeSync(new TextEncoder().encode(text));
      handle.syncSync();
    } finally {
      handle.close();
    }
    Deno.linkSync(staged, file);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      return await parsedKey(readKeyFile(file)!, file);
    }
    throw error;
  } finally {
    Deno.removeSync(staged);
  }
  const key = await signingKey(text);
  io.err(
    `verdict: made your signing key ${file} (${keyFingerprint(key.publicKey)}, public key ` +
      `${key.publicKey}); runs you record are signed with it. Keep it private; whoever checks ` +
      `your runs uses 'verdict verify RUN --key=${key.publicKey}'\n`,
  );
  return key;
}

async function parsedKey(text: string, source: string): Promise<SigningKey> {
  try {
    return await signingKey(text);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new UsageError(
      `${source} holds no Ed25519 signing key: ${error.message}. Fix: set it to the base64 of ` +
        "a 32-byte seed (for example 'openssl rand -base64 32')" +
        (source === SIGNING_KEY_VARIABLE
          ? ", or unset it to leave runs unsigned"
          : `, or remove it and a new key is made`),
    );
  }
}

function unreachable(folder: string, file: string, flag: string): UsageError {
  const what = flag === "--allow-read" ? "read" : "create";
  return new UsageError(
    `this command's permissions name your signing key folder ${folder} but do not let it ` +
      `${what} ${file}. Fix: add ${flag}=${folder} (the installed verdict, from 'deno task ` +
      `install', has both), or set ${SIGNING_KEY_VARIABLE}`,
  );
}
