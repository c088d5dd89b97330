// Co-occurrence counts of concept pairs changed since the incremental graph's last compaction, in an
// open-addressing hash table of typed arrays. A JS Map keyed by pair would cost ~80 bytes an entry and allocate on
// every update; adding one passage touches ~2,000 pairs, and a batch of many passages hundreds of thousands.
// Each entry holds the pair's exact current count and the batch ("stamp") that wrote it, so the owner can tell a
// count written before one of the two concepts left and re-entered the concept set (stale) from a current one.

const EMPTY = 0xffffffff;

/** Unordered pair (a, b) of term ids (a ≠ b) → count and stamp. Entries are never deleted, only overwritten. */
export class PairTable {
  private first: Uint32Array;
  private second: Uint32Array;
  private counts: Int32Array;
  private stamps: Uint32Array;
  private mask: number;
  private used = 0;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.first = new Uint32Array(size).fill(EMPTY);
    this.second = new Uint32Array(size);
    this.counts = new Int32Array(size);
    this.stamps = new Uint32Array(size);
    this.mask = size - 1;
  }

  /** Number of pairs stored. */
  get size(): number {
    return this.used;
  }

  /** Bytes held by the arrays (for the memory report). */
  get bytes(): number {
    return this.first.byteLength * 4;
  }

  /** Slot of the pair, or -1. */
  find(a: number, b: number): number {
    if (a > b) [a, b] = [b, a];
    let i = hash(a, b) & this.mask;
    for (;;) {
      const f = this.first[i];
      if (f === EMPTY) return -1;
      if (f === a && this.second[i] === b) return i;
      i = (i + 1) & this.mask;
    }
  }

  count(slot: number): number {
    return this.counts[slot];
  }

  stamp(slot: number): number {
    return this.stamps[slot];
  }

  /** Stores the pair's count, written at `stamp`. */
  set(a: number, b: number, count: number, stamp: number): void {
    if (a > b) [a, b] = [b, a];
    if ((this.used + 1) * 2 > this.first.length) this.grow();
    let i = hash(a, b) & this.mask;
    for (;;) {
      const f = this.first[i];
      if (f === EMPTY) {
        this.first[i] = a;
        this.second[i] = b;
        this.used++;
        break;
      }
      if (f === a && this.second[i] === b) break;
      i = (i + 1) & this.mask;
    }
    this.counts[i] = count;
    this.stamps[i] = stamp;
  }

  /** Calls fn for every stored pair (a < b). */
  forEach(fn: (a: number, b: number, count: number, stamp: number) => void): void {
    for (let i = 0; i < this.first.length; i++) {
      if (this.first[i] !== EMPTY) fn(this.first[i], this.second[i], this.counts[i], this.stamps[i]);
    }
  }

  clear(): void {
    if (this.first.length > 1 << 16) {
      // A table grown by a large batch goes back to a small one rather than keeping megabytes of empty slots.
      const fresh = new PairTable();
      Object.assign(this, fresh);
      return;
    }
    this.first.fill(EMPTY);
    this.used = 0;
  }

  private grow(): void {
    const { first, second, counts, stamps } = this;
    // An empty table of twice the size (the constructor's capacity × 2, rounded up to a power of two), refilled.
    Object.assign(this, new PairTable(first.length));
    for (let i = 0; i < first.length; i++) {
      if (first[i] !== EMPTY) this.set(first[i], second[i], counts[i], stamps[i]);
    }
  }
}

function hash(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}
