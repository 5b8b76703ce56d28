/**
 * A byte buffer that keeps the first and last `limit / 2` bytes of a stream and counts what it
 * dropped in between, so a command that prints gigabytes cannot exhaust memory.
 *
 * @module
 */

/** Collects a stream's head and tail. */
export class BoundedBuffer {
  readonly #half: number;
  #head: Uint8Array[] = [];
  #headSize = 0;
  #tail: Uint8Array[] = [];
  #tailSize = 0;
  #dropped = 0;

  /** Keeps at most `limit` bytes. */
  constructor(limit: number) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  /** Bytes dropped from the middle. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends a chunk. */
  push(chunk: Uint8Array): void {
    let rest = chunk;
    if (this.#headSize < this.#half) {
      const take = rest.subarray(0, this.#half - this.#headSize);
      this.#head.push(take.slice());
      this.#headSize += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest.slice());
    this.#tailSize += rest.length;
    while (this.#tailSize - this.#tail[0].length >= this.#half) {
      this.#dropped += this.#tail[0].length;
      this.#tailSize -= this.#tail.shift()!.length;
    }
    if (this.#tailSize > this.#half) {
      const excess = this.#tailSize - this.#half;
      this.#tail[0] = this.#tail[0].subarray(excess);
      this.#tailSize -= excess;
      this.#dropped += excess;
    }
  }

  /** Counts `count` bytes dropped between the head and the tail without being pushed. */
  noteDropped(count: number): void {
    this.#dropped += count;
  }

  /** The kept bytes, head then tail (all of them when nothing was dropped). */
  bytes(): Uint8Array {
    const chunks = [...this.#head, ...this.#tail];
    const joined = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    return joined;
  }

  /** The kept bytes as text, with a marker where bytes were dropped. */
  text(): string {
    const decoder = new TextDecoder();
    const head = this.#head.map((chunk) => decoder.decode(chunk, { stream: true })).join("") +
      decoder.decode();
    const tail = this.#tail.map((chunk) => decoder.decode(chunk, { stream: true })).join("") +
      decoder.decode();
    return this.#dropped === 0
      ? head + tail
      : `${head}\n[... ${this.#dropped} bytes dropped ...]\n${tail}`;
  }
}
