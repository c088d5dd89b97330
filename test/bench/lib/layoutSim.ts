// Candidate layouts of pages.bin simulated from a bundle's own sections (issue 47, round thirteen: question-bytes.ts
// --simulate). Bench-only: it decodes the whole part (trusted: the bench's own bundles) and prints what a cold
// question would read under each layout, from the reads and asks question-bytes.ts logged.
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeStructured, encodeStructured } from '../../../src/core/bundle/index.ts';
import { ByteReader, ByteWriter } from '../../../src/core/paged/bytes.ts';
import { expandOpen, residualsOf } from '../../../src/core/paged/compactOpen.ts';
import type { OpenTables, PagesDirectory, PagesOpenV2, TermEntry } from '../../../src/core/paged/format.ts';

/** What the layouts need of a part, decoded whole. */
export interface PartFacts {
  d: PagesDirectory;
  open: OpenTables;
  /** (a) rows that carry each chunk's count of each concept (flag bit on the id gap, the count after), one group. */
  rowsWithCounts: number;
  rowsWithCountsGz: number;
  /** `open` gzip'd as stored, and without its listSizes (what a part without a lists section needs). */
  openGz: number;
  openGzNoLists: number;
  /** Per term group: the postings bytes of its terms whose text and heading postings are ≤ `pulse` bytes each. */
  pulsedPerTermGroup: number[];
  /** [start, end) in the postings section of every posting list that pulsing would inline. */
  pulsed: Array<[number, number]>;
  /** Where each term group's postings start in the postings section (they are in term order), plus the end. */
  postingsOfGroup: number[];
}

export function partFacts(pages: Uint8Array, d: PagesDirectory, pulse: number): PartFacts {
  const sec = (name: keyof PagesDirectory['sections']) =>
    pages.subarray(d.sections[name][0], d.sections[name][0] + d.sections[name][1]);
  const openStored = decodeStructured<PagesOpenV2>(new Uint8Array(gunzipSync(sec('open'))), 'open');
  const open = expandOpen(openStored, d.version, d.chunkCount, d.listsInRows === true, residualsOf(d));
  const lists = sec('lists');
  const nc = d.conceptCount;
  // A part that keeps its lists in its rows already (version 4): (a) is what it is.
  const n = d.listsInRows ? 0 : d.chunkCount;
  // tf of (concept, chunk) from the lists.
  const tf = new Map<number, number>();
  for (let c = 0; c < (d.listsInRows ? 0 : nc); c++) {
    const r = new ByteReader(lists.subarray(open.listOffsets[c], open.listOffsets[c + 1]));
    const df = open.df[c];
    const chunks: number[] = [];
    for (let i = 0, k = 0; i < df; i++) chunks.push((k += r.varint()));
    for (let i = 0; i < df; i++) tf.set(chunks[i] * nc + c, r.varint());
  }
  const rows = new ByteReader(sec('rows'));
  const w = new ByteWriter();
  for (let k = 0; k < n; k++) {
    let c = 0;
    let previous = 0;
    for (let j = 0; j < open.conceptCounts![k]; j++) {
      c += rows.varint();
      const count = tf.get(k * nc + c) ?? 1;
      w.varint((c - previous) * 2 + (count > 1 ? 1 : 0));
      if (count > 1) w.varint(count - 2);
      previous = c;
    }
  }
  const withCounts = w.take();
  const { listSizes: _l, ...noLists } = openStored;
  const pulsedPerTermGroup: number[] = [];
  const postingsOfGroup: number[] = [];
  const pulsed: Array<[number, number]> = [];
  const terms = sec('terms');
  for (let g = 0; g + 1 < open.termGroups.length; g++) {
    const entries = JSON.parse(
      new TextDecoder().decode(gunzipSync(terms.subarray(open.termGroups[g], open.termGroups[g + 1]))),
    ) as TermEntry[];
    let bytes = 0;
    let first = Infinity;
    for (const [, at, len, hat, hlen] of entries) {
      if (len) first = Math.min(first, at);
      if (hlen) first = Math.min(first, hat);
    }
    postingsOfGroup.push(first === Infinity ? (postingsOfGroup.at(-1) ?? 0) : first);
    for (const [, at, len, hat, hlen] of entries)
      if (len <= pulse && hlen <= pulse) {
        bytes += len + hlen;
        if (len) pulsed.push([at, at + len]);
        if (hlen) pulsed.push([hat, hat + hlen]);
      }
    pulsedPerTermGroup.push(bytes);
  }
  postingsOfGroup.push(d.sections.postings[1]);
  return {
    d,
    open,
    rowsWithCounts: d.listsInRows ? d.sections.rows[1] : withCounts.length,
    rowsWithCountsGz: d.listsInRows ? d.sections.rows[1] : gzipSync(withCounts, { level: 9 }).length,
    openGz: d.sections.open[1],
    openGzNoLists: gzipSync(encodeStructured(noLists), { level: 9 }).length,
    pulsedPerTermGroup,
    pulsed,
    postingsOfGroup,
  };
}

/**
 * (d) Each term group followed by its terms' postings (one region a group, in place of the two sections): the blocks
 * a question's asked dictionary and postings ranges fall in, as a count of blocks, and the blocks it reads today in
 * the two sections. `asked` are bundle offsets; `pagesAt` is where pages.bin starts in the bundle.
 */
export function interleavedBlocks(
  facts: PartFacts,
  asked: ReadonlyArray<readonly [number, number]>,
  pagesAt: number,
): number {
  const { d, open, postingsOfGroup: pg } = facts;
  const B = d.blockSize;
  const tAt = pagesAt + d.sections.terms[0];
  const pAt = pagesAt + d.sections.postings[0];
  const pEnd = pAt + d.sections.postings[1];
  const groups = open.termGroups.length - 1;
  const start: number[] = [0];
  for (let g = 0; g < groups; g++)
    start.push(start[g] + open.termGroups[g + 1] - open.termGroups[g] + pg[g + 1] - pg[g]);
  const groupOfPosting = (x: number): number => {
    let lo = 0;
    let hi = groups - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (pg[mid] <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const blocks = new Set<number>();
  const add = (from: number, to: number) => {
    // The region starts where `terms` does: block numbers relative to pages.bin.
    const base = d.sections.terms[0];
    for (let b = Math.floor((base + from) / B); b * B < base + to; b++) blocks.add(b);
  };
  for (const [s, e] of asked) {
    if (s >= tAt && e <= pAt) {
      const x = s - tAt;
      let g = 0;
      while (g + 1 < groups && open.termGroups[g + 1] <= x) g++;
      add(start[g] + x - open.termGroups[g], start[g] + e - tAt - open.termGroups[g]);
    } else if (s >= pAt && e <= pEnd) {
      const x = s - pAt;
      const g = groupOfPosting(x);
      const dict = open.termGroups[g + 1] - open.termGroups[g];
      add(start[g] + dict + x - pg[g], start[g] + dict + e - pAt - pg[g]);
    }
  }
  return blocks.size * B;
}
