/**
 * Reading and writing tar streams (POSIX ustar with PAX extended headers), the format
 * `docker cp` speaks. Only what sealing and staging need: regular files, folders, symlinks and
 * hard links; ownership is written as numbers and never read back into a seal.
 *
 * The entry types and the header's field codecs are in `_tar_format.ts`, the writer in
 * `_tar_writer.ts`, the reader in `_tar_reader.ts` (with `_chunk_reader.ts`, which takes exact
 * byte counts from a stream); this module is what the rest of Verdict imports.
 *
 * @module
 */

export { NonUtf8NameError, type TarEntry, type TarEntryHeader } from "./_tar_format.ts";
export { type OwnedEntries, type PackOptions, packOwnedTar, packTar } from "./_tar_writer.ts";
export { parseTar, type ReadTarOptions, readTarStream } from "./_tar_reader.ts";
