// Where the checked blocks of a pages part lie (format.ts, FORMAT.md "Version 8"). Up to version 7 every block is
// `blockSize` bytes from the part's start (the last one short). From version 8 a section may have a block size of its
// own (the directory's `sectionBlocks`): the part is cut into zones, each a run of consecutive non-empty sections of
// the same block size, and each zone into blocks from its own start (its last block short). Blocks are numbered
// across the zones in file order, and `pages.sha256` holds their hashes in that order, so the hashes of a zone's
// blocks lie side by side in the tree's leaves.
// From version 10 the rows may be cut into blocks of whole rows (the directory's `rowBlocks`, FORMAT.md "Version
// 10"): a zone of its own whose blocks start where rowBlockStarts says, computed from `open`'s row groups. Its block
// count is known from the directory (what the hashes part and its tree are checked against at opening); where its
// blocks start only once `open` is read and checked (place()).

/** A zone of whole rows: its block count, and where each block starts in the section once known. */
export interface ExplicitBlocks {
  count: number;
  /** Which explicit zone: the rows' (version 10, the default) or the evidence's (version 12). */
  key?: 'rows' | 'evidence';
  /** Each block's start from the section's start, ascending from 0 (rowBlockStarts); absent until `open` is read. */
  starts?: ArrayLike<number>;
}

/** A run of blocks: bytes [start, end) of the part, its first block's number; of one size, or starting at `starts`. */
interface Zone {
  start: number;
  end: number;
  size: number;
  first: number;
  /** An explicit zone's block count, and its blocks' starts in the part (with `end` after them) once placed. */
  explicit?: { count: number; key: 'rows' | 'evidence'; starts?: Float64Array };
}

export class BlockLayout {
  /** Blocks in the part. */
  readonly count: number;
  private readonly zones: Zone[];
  /**
   * Version 13's `blockPaths` (blockPaths.ts): the blocks [first, first + count) are each stored followed by a path
   * of `bytes`, so that from the first of them on a block's stored bytes lie after its place in the sections. One run:
   * version 17's lists (blockPaths zones ["lists", "rows"]) lie just before the rows.
   */
  private pathZone: { first: number; count: number; bytes: number } | undefined;
  /** The bytes [start, end) of each named piece of `runs` (a section: version 17's lists are found by theirs). */
  private readonly named = new Map<string, readonly [number, number]>();

  /**
   * `runs` are the part's consecutive [length, blockSize] pieces in file order (checked by the caller: lengths whole
   * numbers ≥ 0, block sizes whole numbers ≥ 1); neighbours of the same block size make one zone, empty ones none.
   * A piece given ExplicitBlocks instead of a size is a zone of its own (its count checked by the caller against
   * the piece's length: 0 for an empty one, at most one a byte).
   * `unit` is the part's block size (the directory's `blockSize`), in which a reader counts the gaps it reads across.
   * A piece may be named (its section's name): withPaths finds version 17's lists by it.
   */
  constructor(
    runs: ReadonlyArray<readonly [number, number | ExplicitBlocks, string?]>,
    readonly unit: number,
  ) {
    const zones: Zone[] = [];
    let at = 0;
    for (const [length, size, name] of runs) {
      if (name !== undefined) this.named.set(name, [at, at + length]);
      if (length === 0) continue;
      const last = zones[zones.length - 1];
      if (typeof size !== 'number') {
        zones.push({
          start: at,
          end: at + length,
          size: 0,
          first: 0,
          explicit: { count: size.count, key: size.key ?? 'rows' },
        });
        at += length;
        if (size.starts) this.placeZone(zones[zones.length - 1], size.starts);
        continue;
      }
      if (last && !last.explicit && last.size === size) last.end += length;
      else zones.push({ start: at, end: at + length, size, first: 0 });
      at += length;
    }
    let first = 0;
    for (const z of zones) {
      z.first = first;
      first += z.explicit ? z.explicit.count : Math.ceil((z.end - z.start) / z.size);
    }
    this.zones = zones;
    this.count = first;
  }

  /**
   * Version 13: the blocks of `zones` each stored followed by a path of `bytes` (blockPaths.ts): the rows' explicit
   * zone, and from version 17 the blocks holding the lists section's bytes (named "lists" in `runs`), which end where
   * the rows' begin. A part without the rows' zone has no block with a path; one whose zones do not make one run of
   * blocks is a writer's or a checker's mistake (checkBlockPaths refuses such a directory first).
   */
  withPaths(zones: ReadonlyArray<'lists' | 'rows'>, bytes: number): this {
    const rows = this.zones.find((z) => z.explicit?.key === 'rows');
    if (!rows || bytes <= 0) return this;
    let first = rows.first;
    const lists = this.named.get('lists');
    if (zones.includes('lists') && lists && lists[1] > lists[0]) {
      first = this.blockOf(lists[0]);
      if (this.blockOf(lists[1] - 1) + 1 !== rows.first)
        throw new Error("the lists' blocks do not end where the rows' begin");
    }
    this.pathZone = { first, count: rows.first + rows.explicit!.count - first, bytes };
    return this;
  }

  /** The blocks holding a named piece's bytes (a section given its name in `runs`; none or empty: undefined). */
  blocksOf(name: string): { first: number; count: number } | undefined {
    const range = this.named.get(name);
    if (!range || range[1] <= range[0]) return undefined;
    const first = this.blockOf(range[0]);
    return { first, count: this.blockOf(range[1] - 1) - first + 1 };
  }

  /** The blocks of the rows' zone (version 10's blocks of whole rows; none: undefined), whatever carries paths. */
  get rowBlocks(): { first: number; count: number } | undefined {
    const rows = this.zones.find((z) => z.explicit?.key === 'rows');
    return rows && { first: rows.first, count: rows.explicit!.count };
  }

  /** The blocks that carry paths, and each path's bytes (none: undefined). */
  get paths(): { first: number; count: number; bytes: number } | undefined {
    return this.pathZone;
  }

  /** The bytes of block b's path after it (0 for a block without one). */
  pathBytesOf(b: number): number {
    const z = this.pathZone;
    return z && b >= z.first && b < z.first + z.count ? z.bytes : 0;
  }

  /** The bytes every path adds to the part's sections. */
  get pathsLength(): number {
    return this.pathZone ? this.pathZone.count * this.pathZone.bytes : 0;
  }

  /** Where block b's stored bytes start in the part as stored (after the paths of the blocks before it). */
  storedStartOf(b: number): number {
    const z = this.pathZone;
    if (!z || b <= z.first) return this.startOf(b);
    return this.startOf(b) + Math.min(b - z.first, z.count) * z.bytes;
  }

  /** Where block b's stored bytes end in the part as stored (after its path, when it carries one). */
  storedEndOf(b: number): number {
    return this.storedStartOf(b) + (this.endOf(b) - this.startOf(b)) + this.pathBytesOf(b);
  }

  /** Every block `blockSize` bytes from the part's start (versions 1 to 7). */
  static uniform(length: number, blockSize: number): BlockLayout {
    return new BlockLayout([[length, blockSize]], blockSize);
  }

  /** Whether every zone's blocks are placed (an explicit zone's once place() has been given its starts). */
  get placed(): boolean {
    return this.zones.every((z) => !z.explicit || z.explicit.starts !== undefined);
  }

  /**
   * Places the explicit zone's blocks (version 10's rows: rowBlockStarts of the checked `open`). The caller has
   * checked the starts: as many as the zone's count, the first 0, ascending, each below the section's length.
   */
  place(starts: ArrayLike<number>, key: 'rows' | 'evidence' = 'rows'): void {
    const zone = this.zones.find((z) => z.explicit?.key === key);
    if (zone) this.placeZone(zone, starts);
  }

  private placeZone(zone: Zone, starts: ArrayLike<number>): void {
    const explicit = zone.explicit!;
    if (starts.length !== explicit.count)
      throw new Error(`${starts.length} block starts for ${explicit.count} blocks`);
    const placed = new Float64Array(starts.length + 1);
    for (let i = 0; i < starts.length; i++) placed[i] = zone.start + starts[i];
    placed[starts.length] = zone.end;
    explicit.starts = placed;
  }

  /** An explicit zone's starts (with its end after them); an unplaced one is a reader's mistake, never a bundle's. */
  private startsOf(z: Zone): Float64Array {
    const starts = z.explicit!.starts;
    if (!starts) throw new Error('the blocks of whole rows are read before open placed them');
    return starts;
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
    if (!z.explicit) return z.first + Math.floor((offset - z.start) / z.size);
    const starts = this.startsOf(z);
    let lo = 0;
    let hi = z.explicit.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return z.first + lo;
  }

  /** Where block b starts in the part. */
  startOf(b: number): number {
    const z = this.zoneOfBlock(b);
    if (z.explicit) return this.startsOf(z)[b - z.first];
    return z.start + (b - z.first) * z.size;
  }

  /** Where block b ends in the part (its zone's end for the zone's last block). */
  endOf(b: number): number {
    const z = this.zoneOfBlock(b);
    if (z.explicit) return this.startsOf(z)[b - z.first + 1];
    return Math.min(z.end, z.start + (b - z.first + 1) * z.size);
  }

  /** The part's blocks' lengths in order, one call a block (writers: the block hasher). */
  *lengths(): Generator<number> {
    for (const z of this.zones) {
      if (z.explicit) {
        const starts = this.startsOf(z);
        for (let i = 0; i < z.explicit.count; i++) yield starts[i + 1] - starts[i];
        continue;
      }
      for (let at = z.start; at < z.end; at += z.size) yield Math.min(z.size, z.end - at);
    }
  }
}

/**
 * Version 10's blocks of whole rows: each block's start from the rows section's start, for rows cut at `groups`
 * (byte offsets of the row groups, ascending from 0 to the section's length: `open`'s rowGroups) packed greedily, in
 * order, into blocks of at most `size` bytes; a group longer than `size` is a block of its own, and an empty group
 * joins the block it falls in (no block is empty: an empty section has none).
 */
export function rowBlockStarts(groups: ArrayLike<number>, size: number): number[] {
  const starts: number[] = [];
  const end = groups.length > 0 ? groups[groups.length - 1] : 0;
  let start = 0;
  for (let g = 1; g < groups.length; g++) {
    const [from, to] = [groups[g - 1], groups[g]];
    // The group does not fit beside what the block holds already: the block ends where the group starts.
    if (to - start > size && from > start) {
      starts.push(start);
      start = from;
    }
  }
  if (end > start) starts.push(start);
  return starts;
}
