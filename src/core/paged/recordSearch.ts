// Chunk records found by id in the `records` section: what a library read by ranges needs for chunks that no search
// of its own named, such as the ones the KG's entities point at. The pages hold no id → chunk index, but they lay
// the chunks out in id order (code-unit order: corpusLayout.ts sorts them, and the streamed build writes documents
// in id order, each document's chunks in id order: build.ts), so each id is found by a binary search over the
// record groups. All ids search at once, so they share the groups of the first steps, and each step is one round
// of reads (the groups it needs are noted while the loaded ones are used at once).
import type { PagedChunkRecord } from './format.ts';

/** The record groups as the search reads them: undefined while a group is not loaded (it is noted then). */
export interface RecordGroups {
  count: number;
  group(g: number): readonly PagedChunkRecord[] | undefined;
}

export class RecordSearch {
  /** The ids still searched for, with the range of groups each may be in (inclusive). */
  private readonly pending = new Map<string, { lo: number; hi: number }>();
  /** The records found, by id; an id the pages do not hold is not in it once the search settles. */
  readonly found = new Map<string, PagedChunkRecord>();
  /** The group each found record is in (a later search for it starts there). */
  readonly groupOf = new Map<string, number>();

  constructor(
    ids: Iterable<string>,
    private readonly groups: RecordGroups,
    /** The group an id is already known to be in (a record read before), if any. */
    knownGroup: (id: string) => number | undefined = () => undefined,
  ) {
    for (const id of ids) {
      if (this.pending.has(id)) continue;
      const g = knownGroup(id);
      this.pending.set(id, g === undefined ? { lo: 0, hi: groups.count - 1 } : { lo: g, hi: g });
    }
  }

  /** Whether every id is found or known to be absent. */
  get settled(): boolean {
    return this.pending.size === 0;
  }

  /** Takes every search as far as the loaded groups allow (the next groups they need are noted as missing). */
  step(): void {
    for (const [id, range] of this.pending) {
      let waiting = false;
      while (range.lo <= range.hi) {
        const mid = (range.lo + range.hi) >>> 1;
        const group = this.groups.group(mid);
        if (!group) {
          waiting = true;
          break;
        }
        if (group.length === 0 || id < group[0].id) range.hi = mid - 1;
        else if (id > group[group.length - 1].id) range.lo = mid + 1;
        else {
          const record = group.find((r) => r.id === id);
          if (record) {
            this.found.set(id, record);
            this.groupOf.set(id, mid);
          }
          break;
        }
      }
      if (!waiting) this.pending.delete(id);
    }
  }
}
