/**
 * The program interpreter an ELF executable asks for (its `PT_INTERP`), read from the program
 * headers: `/lib64/ld-linux-x86-64.so.2` for a glibc binary, none for a static one. A task's image
 * must have that file for the binary to start in it.
 *
 * @module
 */
import { InputError } from "../core/errors.ts";

const PT_INTERP = 3;
// Program headers read at most: real executables have a dozen or two.
const MAX_PROGRAM_HEADERS = 4096;

/**
 * The `PT_INTERP` path of an ELF file, or null when it has none (a static binary).
 *
 * @throws {InputError} naming the file when it is not an ELF file, or its headers are cut short.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputError } from "../core/errors.ts";
 * import { elfInterpreter } from "./elf_interpreter.ts";
 * await assert.rejects(() => elfInterpreter("deno.json"), InputError);
 * ```
 */
export async function elfInterpreter(path: string): Promise<string | null> {
  using file = await Deno.open(path);
  const notElf = (problem: string) =>
    new InputError({
      file: path,
      field: "",
      problem,
      fix: "give an ELF executable for Linux (the agent's native binary)",
    });
  const ident = await readAt(file, 0, 64);
  if (
    ident.length < 52 || ident[0] !== 0x7f || ident[1] !== 0x45 || ident[2] !== 0x4c ||
    ident[3] !== 0x46
  ) {
    throw notElf("not an ELF file (it does not start with \\x7fELF)");
  }
  const wide = ident[4] === 2;
  const little = ident[5] === 1;
  const view = new DataView(ident.buffer, ident.byteOffset, ident.length);
  const word = (at: number) =>
    wide ? Number(view.getBigUint64(at, little)) : view.getUint32(at, little);
  const programHeaders = word(wide ? 0x20 : 0x1c);
  const entrySize = view.getUint16(wide ? 0x36 : 0x2a, little);
  const count = view.getUint16(wide ? 0x38 : 0x2c, little);
  if (count > MAX_PROGRAM_HEADERS || entrySize < (wide ? 56 : 32)) {
    throw notElf(`its ELF header is malformed (${count} program headers of ${entrySize} bytes)`);
  }
  const table = await readAt(file, programHeaders, entrySize * count);
  if (table.length < entrySize * count) throw notElf("its program headers are cut short");
  const headers = new DataView(table.buffer, table.byteOffset, table.length);
  for (let i = 0; i < count; i++) {
    const at = i * entrySize;
    if (headers.getUint32(at, little) !== PT_INTERP) continue;
    const field = (offset: number) =>
      wide
        ? Number(headers.getBigUint64(at + offset, little))
        : headers.getUint32(at + offset, little);
    const offset = field(wide ? 0x08 : 0x04);
    const length = field(wide ? 0x20 : 0x10);
    const bytes = await readAt(file, offset, Math.min(length, 4096));
    const end = bytes.indexOf(0);
    return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
  }
  return null;
}

async function readAt(file: Deno.FsFile, offset: number, length: number): Promise<Uint8Array> {
  await file.seek(offset, Deno.SeekMode.Start);
  const out = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(out.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return out.subarray(0, filled);
}
