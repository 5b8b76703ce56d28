/**
 * Reading exact byte counts from a stream that arrives in chunks of any size, for the tar reader.
 *
 * @module
 */

/** Reads exact byte counts from a stream of chunks of any size. */
export class ChunkReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunk: Uint8Array = new Uint8Array(0);
  #offset = 0;
  #done = false;
  /** Bytes handed out or skipped so far. */
  position = 0;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  /** The next `length` bytes; undefined when the stream ends first. */
  async read(length: number): Promise<Uint8Array | undefined> {
    if (this.#chunk.length - this.#offset >= length) return this.#take(length);
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (this.#offset === this.#chunk.length && !(await this.#next())) return undefined;
      const part = this.#take(Math.min(length - filled, this.#chunk.length - this.#offset));
      out.set(part, filled);
      filled += part.length;
    }
    return out;
  }

  /** Skips `length` bytes (fewer when the stream ends first). */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.#offset === this.#chunk.length && !(await this.#next())) return;
      left -= this.#take(Math.min(left, this.#chunk.length - this.#offset)).length;
    }
  }

  /** Reads the stream to its end, discarding what is left. */
  async drain(): Promise<void> {
    while (await this.#next());
  }

  /** Stops the stream's source. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #take(length: number): Uint8Array {
    const part = this.#chunk.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    this.position += length;
    return part;
  }

  async #next(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#done = true;
      return false;
    }
    this.#chunk = value;
    this.#offset = 0;
    return true;
  }
}
