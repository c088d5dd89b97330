// Candidate layouts of pages.bin simulated from a bundle's own sections (issue 47, round thirteen: question-bytes.ts
// --simulate). Bench-only: it decodes the whole part (trusted: the bench's own bundles) and prints what a cold
// question would read under each layout, from the reads and asks question-bytes.ts logged.
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeStructured, encodeStructured } from '../../../src/core/bundle/index.ts';
import { ByteReader, ByteWriter } from '../../../src/core/paged/bytes.ts';
import { expandOpen } from '../../../src/core/paged/compactOpen.ts';
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
}

export function partFacts(pages: Uint8Array, d: PagesDirectory, pulse: number): PartFacts {
  const sec = (name: keyof PagesDirectory['sections']) =>
    pages.subarray(d.sections[name][0], d.sections[name][0] + d.sections[name][1]);
  const openStored = decodeStructured<PagesOpenV2>(new Uint8Array(gunzipSync(sec('open'))), 'open');
  const open = expandOpen(openStored, d.version, d.chunkCount);
  const lists = sec('lists');
  const nc = d.conceptCount;
  const n = d.chunkCount;
  // tf of (concept, chunk) from the lists.
  const tf = new Map<number, number>();
  for (let c = 0; c < nc; c++) {
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
    for (let j = 0; j < open.conceptCounts[k]; j++) {
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
  const pulsed: Array<[number, number]> = [];
  const terms = sec('terms');
  for (let g = 0; g + 1 < open.termGroups.length; g++) {
    const entries = JSON.parse(
      new TextDecoder().decode(gunzipSync(terms.subarray(open.termGroups[g], open.termGroups[g + 1]))),
    ) as TermEntry[];
    let bytes = 0;
    for (const [, at, len, hat, hlen] of entries)
      if (len <= pulse && hlen <= pulse) {
        bytes += len + hlen;
        if (len) pulsed.push([at, at + len]);
        if (hlen) pulsed.push([hat, hat + hlen]);
      }
    pulsedPerTermGroup.push(bytes);
  }
  return {
    d,
    open,
    rowsWithCounts: withCounts.length,
    rowsWithCountsGz: gzipSync(withCounts, { level: 9 }).length,
    openGz: d.sections.open[1],
    openGzNoLists: gzipSync(encodeStructured(noLists), { level: 9 }).length,
    pulsedPerTermGroup,
    pulsed,
  };
}

