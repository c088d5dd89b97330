// Where the checked blocks of a pages part lie (format.ts, FORMAT.md "Version 8"). Up to version 7 every block is
// `blockSize` bytes from the part's start (the last one short). From version 8 a section may have a block size of its
// own (the directory's `sectionBlocks`): the part is cut into zones, each a run of consecutive non-empty sections of
// the same block size, and each zone into blocks from its own start (its last block short). Blocks are numbered
// across the zones in file order, and `pages.sha256` holds their hashes in that order, so the hashes of a zone's
// blocks lie side by side in the tree's leaves.

/** A run of blocks of one size: bytes [start, end) of the part, its first block's number. */
interface Zone {
  start: number;
  end: number;
  size: number;
  first: number;
}

export class BlockLayout {
  /** Blocks in the part. */
  readonly count: number;
  private readonly zones: Zone[];

  /**
   * `runs` are the part's consecutive [length, blockSize] pieces in file order (checked by the caller: lengths whole
   * numbers ≥ 0, block sizes whole numbers ≥ 1); neighbours of the same block size make one zone, empty ones none.
   * `unit` is the part's block size (the directory's `blockSize`), in which a reader counts the gaps it reads across.
   */
  constructor(
    runs: ReadonlyArray<readonly [number, number]>,
    readonly unit: number,
  ) {
    const zones: Zone[] = [];
    let at = 0;
    for (const [length, size] of runs) {
      if (length === 0) continue;
      const last = zones[zones.length - 1];
      if (last && last.size === size) last.end += length;
      else zones.push({ start: at, end: at + length, size, first: 0 });
      at += length;
    }
    let first = 0;
    for (const z of zones) {
      z.first = first;
      first += Math.ceil((z.end - z.start) / z.size);
    }
    this.zones = zones;
    this.count = first;
  }

  /** Every block `blockSize` bytes from the part's start (versions 1 to 7). */
  static uniform(length: number, blockSize: number): BlockLayout {
    return new BlockLayout([[length, blockSize]], blockSize);
  }

  /** The last zone whose `key` is at most `at` (zones ascend in both their first block and their start). */
  private zoneAt(key: 'first' | 'start', at: number): Zone {
    let lo = 0;
    let hi = this.zones.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.zones[mid][key] <= at) lo = mid;
      else hi = mid - 1;
    }
    return this.zones[lo];
  }

  /** The zone of a block (b < count). */
  private zoneOfBlock(b: number): Zone {
    return this.zoneAt('first', b);
  }

  /** The block holding byte `offset` of the part (0 ≤ offset < the part's length). */
  blockOf(offset: number): number {
    const z = this.zoneAt('start', offset);
    return z.first + Math.floor((offset - z.start) / z.size);
  }

  /** Where block b starts in the part. */
  startOf(b: number): number {
    const z = this.zoneOfBlock(b);
    return z.start + (b - z.first) * z.size;
  }

  /** Where block b ends in the part (its zone's end for the zone's last block). */
  endOf(b: number): number {
    const z = this.zoneOfBlock(b);
    return Math.min(z.end, z.start + (b - z.first + 1) * z.size);
  }

  /** The part's blocks' lengths in order, one call a block (writers: the block hasher). */
  *lengths(): Generator<number> {
    for (const z of this.zones) {
      for (let at = z.start; at < z.end; at += z.size) yield Math.min(z.size, z.end - at);
    }
  }
}
