// How few bytes can the same ranking read? (issue 47, round twenty-four: are ≤ 1.5 MB at 100 MiB and ≤ 2 MB at 1 GiB
// reachable by any layout without a ranking change?) Each question is asked cold, as question-bytes.ts asks it (a fresh
// openPagedBundle over a memory source, gap 0, ppr, budget 12,000, the Ask view's first page with --first-page), and
// everything the ranking and the evidence use is recorded item by item:
// - `open`'s arrays: each entry read, by counting views of them (as open-usage.ts's, installed before the library's
//   walk takes its degree arrays, and on the BM25 lengths the library keeps; the opening's own passes are forgotten);
// - rows (one a chunk: each row group asked), lists (each concept's exact list inside the packed span read), postings
//   (each list asked), degrees (each 8-byte entry asked), evidence blocks (each asked), dictionary entries (the
//   entries of the term and concept groups read: a binary search's probes and the entry found), records (each record
//   shown, and the records' dictionary).
// It then prints, per part and in total (KB, p50 / max / mean over the questions), a ladder of lower bounds:
// (a) today's read (the source's bytes by region, as question-bytes.ts splits them) and "asked" (the exact ranges the
//     library asked its block store for: question-bytes.ts's asked, for the check);
// (b) the used items' bytes as coded today, each as if fetched alone: an `open` entry at its array's share of `open`
//     (the array gzip'd alone, scaled so the arrays sum to the section), a dictionary entry or a record at its share
//     of its group (by its JSON's length), a list at its exact bytes in its packed block, the rest as asked;
// (c) (b) with rows, lists and postings at an entropy estimate of their values (each gap and count coded by its
//     power-of-two bucket, the buckets at their order-0 entropy over every item the run used, plus the bucket's
//     low bits), `open`'s entries at their array's order-0 entropy (of the values, or of the sizes for the group
//     offsets), each item at most its (b); dictionaries, records, degrees and evidence as (b);
// (d) (b) plus a binary Merkle multiproof of 16-byte hashes (test/bench/lib/multiproof.ts) per part (one tree per
//     section and per `open` array, its root trusted from the head), at leaves of one item, 128, 512 and 1,024 bytes
//     of the part as coded today (a leaf read whole: data rounded to its leaves);
// (e) what comes first whatever the layout: the head (manifest, directory) as read today, the trees' roots, and for
//     comparison the dictionaries' first keys read whole (today they are in `open`; (b) counts only the probes).
// (f) a layout with no `open` arrays to authenticate: each row read carrying its concepts' df and degree codes, each
//     posting its chunk's BM25 lengths (at their entropy, once a naming), every other part at its best leaf size,
//     and the arrays that locate items (offsets, first entries and keys, concept counts) read whole as today.
// The same ladder for later questions: the items each question uses that the questions before it in the run did not
// (a library that kept everything it read), and proofs that stop at nodes checked before. (a) for later questions is
// question-bytes.ts --later's.
// Last, the walk's share: how many rows the pushed concepts' lists name, and how many would remain if concepts of more
// than T chunks were not pushed (a ranking change, measured here, not made).
// (g) today's layout, block for block, with `open`'s df, degree codes and BM25 lengths inlined where they are named
//     (round thirty-one): as varints, and at (f)'s entropy.
// --param key=value (repeatable): a query-time parameter the library is opened with (question-bytes.ts's), e.g.
// walkMaxDf=300 (the walk's hubs held: a ranking change, measured here, not made).
// Usage: node --import tsx test/bench/read-bound.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page] [--param k=v]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { gzipSync } from 'node:zlib';
import { decodeStructured, gunzip } from '../../src/core/bundle/index.ts';
import { BlockStore, gzipSize } from '../../src/core/paged/blockStore.ts';
import { ByteReader } from '../../src/core/paged/bytes.ts';
import { recordGroupBytes, type OpenTables, type PagesDirectory } from '../../src/core/paged/format.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { listSpanOf, skipList } from '../../src/core/paged/listPacking.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg, positional, paramOverrides } from './lib/args.ts';
import { regionsOf } from './lib/bundleRegions.ts';
import { multiproofHashes } from './lib/multiproof.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';
import { addSplit, mergeIntervals, TaggedSource, type Split } from './lib/taggedSource.ts';

const USAGE =
  'usage: node --import tsx test/bench/read-bound.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page] [--param key=value ...]';
const PARAMS = paramOverrides();
const HASH_BYTES = 16;
/** Leaf sizes of rung (d): 0 is one item a leaf. */
const LEAVES = [0, 128, 512, 1024];
/** df thresholds of the walk's share: concepts in more chunks than this not pushed. */
const HUBS = [10_000, 1_000, 300, 100];
/** `open`'s arrays (as the reader expands them) and the stored arrays that code each (open-breakdown.ts's names). */
const STORED_OF: Record<string, string[]> = {
  textLengths: ['textLengths'],
  headingLengths: ['headingLengths'],
  conceptCounts: ['conceptCounts'],
  tokens: ['tokens'],
  documentChunks: ['documentChunks'],
  titleChunks: ['titleChunks'],
  df: ['df', 'dfOnes'],
  idf: ['idfDf', 'idf'],
  degreeCodes: ['degreeCodes'],
  listOffsets: ['listSizes'],
  listFirsts: ['listStarts'],
  evidenceStarts: ['evidenceBlocks'],
  recordGroups: ['recordGroups'],
  rowGroups: ['rowGroups'],
  termGroups: ['termGroups'],
  conceptGroups: ['conceptGroups'],
  termFirst: ['termFirst'],
  conceptFirst: ['conceptFirst'],
};
/** Arrays of offsets: their entropy is their sizes' (the differences). */
const OFFSETS = new Set([
  'recordGroups',
  'rowGroups',
  'termGroups',
  'conceptGroups',
  'listFirsts',
  'evidenceStarts',
]);
const SECTIONS = ['rows', 'lists', 'postings', 'terms', 'concepts', 'records', 'evidence', 'degrees'];
const ORDER = ['head', 'hashes', 'open', ...SECTIONS];
/** `open`'s arrays that locate items rather than score them: read whole in rung (f). */
const LOCATING = [
  'conceptCounts',
  'rowGroups',
  'listFirsts',
  'evidenceStarts',
  'recordGroups',
  'termGroups',
  'conceptGroups',
  'termFirst',
  'conceptFirst',
];

// ---- what a question uses, recorded by bench-only patches (the run in progress, undefined between runs)

interface Run {
  reader?: SectionReader;
  /** Raw `open` arrays, before the counting views. */
  raw: Record<string, ArrayLike<number> | string[]>;
  /** Per `open` array: 1 at each entry read. */
  uses: Map<string, Uint8Array>;
  /** Per part: item → [start, end) in the part's bytes as coded today. */
  items: Map<string, Map<number, [number, number]>>;
  /** The store's exact asked ranges, pages-relative. */
  asked: Array<[number, number]>;
  /** Dictionary groups decoded: key → entries (raw). */
  groups: Map<string, unknown[]>;
  /** Dictionary entries read: key → entry indices. */
  entries: Map<string, Set<number>>;
  /** Postings: the last list asked (its section offset), for its decoded values. */
  lastPostings: number;
  /** The concepts the walk computed a row for (pushed), with their lists' chunks. */
  pushed: Map<number, Uint32Array>;
  /** Concepts the rows read name, and chunks the postings read name (what an `open` entry inlined would repeat). */
  refs: { rows: number; postings: number };
  /**
   * Rung (g): what inlining `open`'s scoring values where they are named adds, coded as varints (the rows' and
   * postings' own coding): a row's concept its df and, for a concept in more than one chunk, its one-byte degree code;
   * a text posting its chunk's text length, a heading posting its fields' length (text and headings).
   */
  inline: { rows: number; postings: number };
  /** The postings list being decoded is a heading one (postingsOf's `heading`). */
  heading: boolean;
  d: PagesDirectory;
}
let run: Run | undefined;

/** Entropy symbols of items (part → item → symbols): gaps' buckets 0–63, counts' buckets 64–127. */
const symbols = new Map<string, Map<number, Uint8Array>>();

function bucket(v: number): number {
  return v < 1 ? 0 : Math.min(63, Math.floor(Math.log2(v)));
}
/** An ascending list's gaps (first from −1) and its counts, as bucket symbols. */
function symbolsOf(ids: ArrayLike<number>, counts?: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(ids.length + (counts?.length ?? 0));
  let last = -1;
  for (let i = 0; i < ids.length; i++) {
    out[i] = bucket(ids[i] - last);
    last = ids[i];
  }
  if (counts) for (let i = 0; i < counts.length; i++) out[ids.length + i] = 64 + bucket(counts[i]);
  return out;
}
/** LEB128's bytes for a whole number. */
function varintBytes(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}
function noteSymbols(part: string, item: number, s: Uint8Array): void {
  let m = symbols.get(part);
  if (!m) symbols.set(part, (m = new Map()));
  if (!m.has(item)) m.set(item, s);
}

function noteItem(part: string, item: number, start: number, end: number): void {
  if (run) noteItemOf(run, part, item, start, end);
}
function noteItemOf(r: Run, part: string, item: number, start: number, end: number): void {
  let m = r.items.get(part);
  if (!m) r.items.set(part, (m = new Map()));
  if (!m.has(item)) m.set(item, [start, end]);
}

function sectionAt(d: PagesDirectory, offset: number): string | undefined {
  for (const [name, [at, length]] of Object.entries(d.sections))
    if (offset >= at && offset < at + length) return name;
  return undefined;
}

type StoreInternals = { base: number };
const store = BlockStore.prototype as unknown as {
  bytes(offset: number, length: number): Uint8Array | undefined;
  group(key: string, offset: number, length: number, decode?: unknown): unknown;
};
const bytesOf = store.bytes;
const groupOf = store.group;
store.bytes = function (this: StoreInternals, offset: number, length: number) {
  const value = bytesOf.call(this, offset, length);
  if (run) {
    const d = run.d;
    run.asked.push([offset, offset + length]);
    const section = sectionAt(d, offset);
    const rel = offset - (section ? d.sections[section as keyof typeof d.sections][0] : 0);
    if (section === 'postings') {
      run.lastPostings = rel;
      noteItem('postings', rel, rel, rel + length);
    } else if (section === 'degrees') noteItem('degrees', Math.floor(rel / 8), rel, rel + length);
  }
  return value;
};
store.group = function (this: StoreInternals, key: string, offset: number, length: number, decode?: unknown) {
  const value = groupOf.call(this, key, offset, length, decode);
  if (!run) return value;
  const d = run.d;
  run.asked.push([offset, offset + length]);
  const g = Number(key.slice(1));
  if (key[0] === 'r' && value) {
    const rel = offset - d.sections.rows[0];
    const { starts, ids } = value as { starts: Uint32Array; ids: Uint32Array };
    if (!run.items.get('rows')?.has(g)) {
      run.refs.rows += starts[starts.length - 1] - starts[0];
      const df = run.raw.df as ArrayLike<number> | undefined;
      if (df)
        for (let j = starts[0]; j < starts[starts.length - 1]; j++)
          run.inline.rows += varintBytes(df[ids[j]]) + (df[ids[j]] > 1 ? 1 : 0);
    }
    noteItem('rows', g, rel, rel + length);
    // Each chunk's row its own ascending list (a group of rows that keep the lists, listsInRows, is read whole).
    const rows: Uint8Array[] = [];
    for (let i = 0; i + 1 < starts.length; i++) rows.push(symbolsOf(ids.subarray(starts[i], starts[i + 1])));
    noteSymbols('rows', g, rows.length === 1 ? rows[0] : Uint8Array.from(rows.flatMap((x) => [...x])));
  } else if (key[0] === 'e' && value) {
    const evidenceAt = d.sections.records[0] + d.sections.records[1] - (d.evidenceArrays?.bytes ?? 0);
    noteItem('evidence', g, offset - evidenceAt, offset - evidenceAt + length);
  } else if (key === 'kd' && value) {
    const rel = offset - d.sections.records[0];
    noteItem('records', d.chunkCount, rel, rel + length);
  } else if ((key[0] === 't' || key[0] === 'c') && Array.isArray(value)) {
    // A dictionary group: the entries read of it (a binary search's probes, the entry found) are its used items.
    const current = run;
    current.groups.set(key, value as unknown[]);
    let seen = current.entries.get(key);
    if (!seen) current.entries.set(key, (seen = new Set()));
    const used = seen;
    return new Proxy(value as unknown[], {
      get(target, prop) {
        if (typeof prop === 'string' && prop.charCodeAt(0) >= 48 && prop.charCodeAt(0) <= 57)
          used.add(Number(prop));
        return Reflect.get(target, prop, target) as unknown;
      },
    });
  }
  return value;
};

type ReaderPatch = Record<string, (...a: unknown[]) => unknown>;
const reader = SectionReader.prototype as unknown as ReaderPatch;
const walkDegrees = reader.walkDegrees;
// The library takes the walk's degree arrays (df, degreeCodes) when it is built: the counting views go in first.
reader.walkDegrees = function (this: SectionReader, ...a: unknown[]) {
  if (run && !run.reader) install(this);
  return walkDegrees.apply(this, a);
};
const decodePackedList = reader.decodePackedList;
reader.decodePackedList = function (this: SectionReader, ...a: unknown[]) {
  // Today's packed blocks skip the lists before c by their df: a list fetched alone needs only its own df.
  paused = true;
  let list: { chunks: Uint32Array; tf: Float32Array };
  try {
    list = decodePackedList.apply(this, a) as {
      chunks: Uint32Array;
      tf: Float32Array;
    };
  } finally {
    paused = false;
  }
  if (run) {
    run.uses.get('df')![a[0] as number] = 1;
    const [c, bytes, first] = a as [number, Uint8Array, number];
    const df = run.raw.df as Uint32Array;
    const firsts = run.raw.listFirsts as Uint32Array;
    const [from] = listSpanOf(firsts, c, run.d.listCoding!.blockBytes, run.d.sections.lists[1]);
    const r = new ByteReader(bytes);
    for (let j = first; j < c; j++) skipList(r, df[j]);
    const start = r.at;
    skipList(r, df[c]);
    noteItem('lists', c, from + start, from + r.at);
    noteSymbols('lists', c, symbolsOf(list.chunks, list.tf));
  }
  return list;
};
const decodePostingList = reader.decodePostingList;
reader.decodePostingList = function (this: SectionReader, ...a: unknown[]) {
  const list = decodePostingList.apply(this, a) as {
    chunks: Uint32Array;
    freqs: Uint16Array;
  };
  if (run) {
    noteSymbols('postings', run.lastPostings, symbolsOf(list.chunks, list.freqs));
    run.refs.postings += list.chunks.length;
    // A text posting scores by its chunk's text length, a heading posting by the fields' (text and headings summed).
    const text = run.raw.textLengths as ArrayLike<number> | undefined;
    const headings = run.heading ? (run.raw.headingLengths as ArrayLike<number> | undefined) : undefined;
    if (text)
      for (const k of list.chunks)
        run.inline.postings += varintBytes(Math.round(text[k] + (headings ? headings[k] : 0)));
  }
  return list;
};
const postingsOf = reader.postingsOf;
reader.postingsOf = function (this: SectionReader, ...a: unknown[]) {
  if (run) run.heading = a[2] === true;
  return postingsOf.apply(this, a);
};
const walkRow = reader.walkRow;
reader.walkRow = function (this: SectionReader, ...a: unknown[]) {
  const row = walkRow.apply(this, a);
  const u = a[0] as number;
  if (run && row && !run.pushed.has(u)) {
    const lists = (this as unknown as { lists: Map<number, { chunks: Uint32Array }> }).lists;
    run.pushed.set(u, lists.get(u)?.chunks ?? new Uint32Array(0));
  }
  return row;
};
const recordOf = reader.record;
reader.record = function (this: SectionReader, ...a: unknown[]) {
  const record = recordOf.apply(this, a);
  const k = a[0] as number;
  if (run && record) {
    // A record at its share of its group's stored bytes, by its JSON's length.
    const size = run.d.groups.records;
    const g = Math.floor(k / size);
    const group = (this as unknown as { recordGroup(g: number): unknown[] }).recordGroup(g);
    const lengths = group.map((x) => JSON.stringify(x).length);
    const offsets = run.raw.recordGroups as Float64Array;
    const bytes = offsets[g + 1] - offsets[g];
    const total = lengths.reduce((s, x) => s + x, 0);
    const i = k - g * size;
    const before = lengths.slice(0, i).reduce((s, x) => s + x, 0);
    noteItem(
      'records',
      k,
      offsets[g] + (bytes * before) / total,
      offsets[g] + (bytes * (before + lengths[i])) / total,
    );
  }
  return record;
};

/** While set, the counting views note nothing (what only today's layout reads). */
let paused = false;

/** A view of `array` noting each index read. */
function counting<T extends object>(array: T, use: Uint8Array): T {
  return new Proxy(array, {
    get(target, prop) {
      if (!paused && typeof prop === 'string' && prop.charCodeAt(0) >= 48 && prop.charCodeAt(0) <= 57)
        use[Number(prop)] = 1;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The counting views on the reader's `open` (before the library's walk takes its arrays). */
function install(r: SectionReader): void {
  if (!run) return;
  run.reader = r;
  const open = r.open as unknown as Record<string, ArrayLike<number> | undefined>;
  for (const name of Object.keys(STORED_OF)) {
    const array = open[name];
    if (!array || array.length === 0) continue;
    const use = new Uint8Array(array.length);
    run.uses.set(name, use);
    run.raw[name] = array;
    open[name] = counting(array as unknown as object, use) as ArrayLike<number>;
  }
}

// ---- the bundle's facts: `open`'s per-entry costs, the parts' trees

interface OpenFacts {
  /** Bytes an entry costs as coded today (its array's share of `open`). */
  w: Map<string, number>;
  /** Order-0 entropy an entry, bits (Infinity: no estimate, strings). */
  h: Map<string, number>;
  /** `open`'s stored arrays that no expanded array names (scalars, and what the reader derives). */
  unmapped: number;
  section: number;
}

function order0Bits(values: ArrayLike<number>): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < values.length; i++) counts.set(values[i], (counts.get(values[i]) ?? 0) + 1);
  let bits = 0;
  for (const c of counts.values()) bits -= c * Math.log2(c / values.length);
  return values.length ? bits / values.length : 0;
}

async function openFacts(
  data: Uint8Array,
  pagesAt: number,
  d: PagesDirectory,
  open: OpenTables,
): Promise<OpenFacts> {
  const [at, length] = d.sections.open;
  const section = data.subarray(pagesAt + at, pagesAt + at + length);
  const stored = decodeStructured(await gunzip(section, gzipSize(section)), 'open') as Record<
    string,
    unknown
  >;
  const alone = new Map<string, number>();
  for (const [key, value] of Object.entries(stored)) {
    if (typeof value === 'number' || value === undefined) continue;
    const bytes = ArrayBuffer.isView(value)
      ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
      : new TextEncoder().encode(JSON.stringify(value));
    alone.set(key, gzipSync(bytes).length);
  }
  const scale = length / [...alone.values()].reduce((s, x) => s + x, 0);
  const w = new Map<string, number>();
  const h = new Map<string, number>();
  const mapped = new Set<string>();
  const expanded = open as unknown as Record<string, ArrayLike<number> | undefined>;
  for (const [name, keys] of Object.entries(STORED_OF)) {
    const array = expanded[name];
    if (!array || array.length === 0) continue;
    for (const k of keys) mapped.add(k);
    w.set(name, (scale * keys.reduce((s, k) => s + (alone.get(k) ?? 0), 0)) / array.length);
    if (typeof array[0] !== 'number') h.set(name, Infinity);
    else if (OFFSETS.has(name)) {
      const sizes = new Float64Array(array.length);
      for (let i = 0; i + 1 < array.length; i++) sizes[i] = array[i + 1] - array[i];
      h.set(name, order0Bits(sizes));
    } else h.set(name, order0Bits(array));
  }
  let unmapped = 0;
  for (const [k, v] of alone) if (!mapped.has(k)) unmapped += scale * v;
  return { w, h, unmapped, section: length };
}

interface Tree {
  /** Items (leaves of one item). */
  items: number;
  /** The part's bytes as coded today. */
  bytes: number;
  /** Where an item id falls among `items` leaves (postings: by its offset). */
  leafOf: (item: number) => number;
}

function treesOf(d: PagesDirectory, open: OpenFacts, raw: Record<string, ArrayLike<number> | string[]>) {
  const trees = new Map<string, Tree>();
  const id = (x: number) => x;
  for (const [name, w] of open.w) {
    const n = raw[name].length;
    trees.set(`open:${name}`, { items: n, bytes: n * w, leafOf: id });
  }
  const section = (s: string) => d.sections[s as keyof typeof d.sections][1];
  const lists = d.termCount * (d.headingCopies > 0 ? 2 : 1);
  trees.set('rows', {
    items: raw.rowGroups.length - 1,
    bytes: section('rows'),
    leafOf: id,
  });
  trees.set('lists', {
    items: d.conceptCount,
    bytes: section('lists'),
    leafOf: id,
  });
  trees.set('postings', {
    items: lists,
    bytes: section('postings'),
    leafOf: (at) => Math.min(lists - 1, Math.floor((at * lists) / section('postings'))),
  });
  trees.set('terms', {
    items: d.termCount,
    bytes: section('terms'),
    leafOf: id,
  });
  trees.set('concepts', {
    items: d.conceptCount,
    bytes: section('concepts'),
    leafOf: id,
  });
  trees.set('records', {
    items: d.chunkCount + 1,
    bytes: recordGroupBytes(d) + (d.recordCoding?.dictionary ?? 0),
    leafOf: id,
  });
  trees.set('evidence', {
    items: d.evidenceArrays?.count ?? 1,
    bytes: d.evidenceArrays?.bytes ?? 0,
    leafOf: id,
  });
  trees.set('degrees', {
    items: d.conceptCount,
    bytes: section('degrees'),
    leafOf: id,
  });
  return trees;
}

// ---- the ladder

/** One question's rungs, by part (KB-able bytes). */
interface Rungs {
  read: Split;
  asked: Split;
  b: Split;
  c: Split;
  /** Per leaf size: data read whole by its leaves, and the proof's hashes' bytes. */
  data: Split[];
  proof: Split[];
}
const rungs = (): Rungs => ({
  read: new Map(),
  asked: new Map(),
  b: new Map(),
  c: new Map(),
  data: LEAVES.map(() => new Map()),
  proof: LEAVES.map(() => new Map()),
});
const add = (m: Split, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const partOf = (tree: string) => (tree.startsWith('open:') ? 'open' : tree);

/** Per tree and leaf size: the leaves read before (later questions) and the nodes checked before. */
interface Memory {
  leaves: Map<string, Set<number>>;
  known: Map<string, Set<number>>;
}

/** Rungs (b)–(d) of a question's items (those not in `seen`, when later questions skip what was read before). */
function ladder(
  used: Map<string, Map<number, [number, number]>>,
  trees: Map<string, Tree>,
  open: OpenFacts,
  itemBits: (part: string, item: number) => number | undefined,
  out: Rungs,
  memory?: Memory,
): void {
  for (const [tree, items] of used) {
    const t = trees.get(tree)!;
    const part = partOf(tree);
    const name = tree.slice(5);
    for (const [item, [s, e]] of items) {
      add(out.b, part, e - s);
      if (part === 'open') {
        const hBytes = open.h.get(name)! / 8;
        add(out.c, part, Math.min(e - s, hBytes));
      } else {
        const bits = itemBits(tree, item);
        add(out.c, part, bits === undefined ? e - s : Math.min(e - s, bits / 8));
      }
    }
    LEAVES.forEach((size, li) => {
      const leaves = new Set<number>();
      let data = 0;
      if (size === 0) {
        for (const [item, [s, e]] of items) {
          leaves.add(t.leafOf(item));
          data += e - s;
        }
      } else
        for (const [s, e] of items.values())
          for (let l = Math.floor(s / size); l * size < e; l++) leaves.add(l);
      const count = size === 0 ? t.items : Math.max(1, Math.ceil(t.bytes / size));
      const key = `${tree}@${size}`;
      let fresh = leaves;
      let known: Set<number> | undefined;
      if (memory) {
        const before = memory.leaves.get(key) ?? new Set<number>();
        memory.leaves.set(key, before);
        fresh = new Set([...leaves].filter((l) => !before.has(l)));
        for (const l of fresh) before.add(l);
        known = memory.known.get(key) ?? new Set<number>();
        memory.known.set(key, known);
      }
      if (size > 0) data = fresh.size * size;
      add(out.data[li], part, data);
      add(
        out.proof[li],
        part,
        HASH_BYTES *
          multiproofHashes(
            count,
            [...fresh].map((l) => Math.min(l, count - 1)),
            known,
          ),
      );
    });
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
const kb = (x: number) => Math.round(x / 1000).toLocaleString('en-US');
const sum = (m: Split) => [...m.values()].reduce((a, b) => a + b, 0);
const stats = (v: number[]) => `${kb(quantile(v, 0.5))} / ${kb(Math.max(...v))} / ${kb(mean(v))}`;

function printLadder(title: string, all: Rungs[], fixed: number, withRead: boolean): void {
  console.log(`\n### ${title} (KB; per part the mean a question, total p50 / max / mean)`);
  const cols = [
    ...(withRead ? ['(a) read', 'asked'] : []),
    '(b) items',
    '(c) entropy',
    ...LEAVES.map((l) => `(d) ${l ? `${l} B leaves` : 'item leaves'}: data + proof`),
    '(d) best leaf a part',
  ];
  console.log(`| part | ${cols.join(' | ')} |`);
  console.log(`|---|${cols.map(() => '---:').join('|')}|`);
  const pick = (r: Rungs, k: string | undefined): number[] => {
    const get = (m: Split) => (k === undefined ? sum(m) : (m.get(k) ?? 0));
    return [
      ...(withRead ? [get(r.read), get(r.asked)] : []),
      get(r.b),
      get(r.c),
      ...LEAVES.map((_, i) => get(r.data[i]) + get(r.proof[i])),
      (k === undefined ? ORDER : [k])
        .map((p) => Math.min(...LEAVES.map((_, i) => (r.data[i].get(p) ?? 0) + (r.proof[i].get(p) ?? 0))))
        .reduce((a, b) => a + b, 0),
    ];
  };
  for (const part of ORDER) {
    const values = all.map((r) => pick(r, part));
    if (values.every((v) => v.every((x) => x === 0))) continue;
    const cells = cols.map((_, i) => {
      const m = mean(values.map((v) => v[i]));
      const li = i - (withRead ? 4 : 2);
      if (li < 0 || li >= LEAVES.length) return kb(m);
      const proof = mean(all.map((r) => r.proof[li].get(part) ?? 0));
      return `${kb(m)} (${kb(proof)})`;
    });
    console.log(`| ${part} | ${cells.join(' | ')} |`);
  }
  const totals = all.map((r) => pick(r, undefined));
  console.log(`| **total** | ${cols.map((_, i) => stats(totals.map((v) => v[i]))).join(' | ')} |`);
  if (fixed > 0) console.log(`(head and roots included in every rung: ${kb(fixed)} KB a question)`);
}

async function main(): Promise<void> {
  const bundlePath = positional();
  const qaPath = process.argv.slice(2).filter((a) => !a.startsWith('--'))[1];
  if (!bundlePath || !qaPath) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  const firstPage = process.argv.includes('--first-page');
  const data = new Uint8Array(await readFile(bundlePath));
  const picked = spread(await questionsOf(qaPath), n);
  const analyzer = createTermAnalyzer();
  const { regions, d } = await regionsOf(data, bundlePath);
  const pagesAt = regions.find((r) => r.name === 'open')!.start;
  let facts: OpenFacts | undefined;
  let trees: Map<string, Tree> | undefined;
  const cold: Rungs[] = [];
  const runs: Run[] = [];
  const heads: number[] = [];
  const started = new Date().toISOString().slice(11, 16);
  for (const q of picked) {
    const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
    source.regions = regions;
    source.gapBytes = 0;
    const current: Run = {
      raw: {},
      uses: new Map(),
      items: new Map(),
      asked: [],
      groups: new Map(),
      entries: new Map(),
      lastPostings: 0,
      pushed: new Map(),
      refs: { rows: 0, postings: 0 },
      inline: { rows: 0, postings: 0 },
      heading: false,
      d,
    };
    run = current;
    const opened = await openPagedBundle(source, analyzer, PARAMS);
    if (!opened || !current.reader) throw new Error(`${bundlePath}: has no pages`);
    const library = opened.library;
    // The BM25 lengths the library keeps from `open` (the text's are `open`'s own; the fields' sum text and headings).
    const scoring = (
      library as unknown as {
        scoring: Record<string, { lengths: Float32Array }>;
      }
    ).scoring;
    const fieldsUse = new Uint8Array(scoring.fields.lengths.length);
    scoring.text.lengths = counting(scoring.text.lengths, current.uses.get('textLengths')!);
    scoring.fields.lengths = counting(scoring.fields.lengths, fieldsUse);
    // What the opening itself read of the arrays (its sums and checks) is forgotten: a question's use starts here.
    // The bundle's facts from the raw arrays (the counting views would note every entry).
    facts ??= await openFacts(data, pagesAt, d, current.raw as unknown as OpenTables);
    trees ??= treesOf(d, facts, current.raw);
    for (const use of current.uses.values()) use.fill(0);
    await askAsBench(library, q, firstPage);
    run = undefined;
    const headingUse = current.uses.get('headingLengths');
    fieldsUse.forEach((x, i) => {
      if (x) {
        current.uses.get('textLengths')![i] = 1;
        if (headingUse) headingUse[i] = 1;
      }
    });
    // `open`'s entries as items.
    for (const [name, use] of current.uses) {
      const w = facts.w.get(name)!;
      const m = new Map<number, [number, number]>();
      use.forEach((x, i) => {
        if (x) m.set(i, [i * w, (i + 1) * w]);
      });
      current.items.set(`open:${name}`, m);
    }
    // Dictionary entries as items, each at its share of its group by its JSON's length.
    for (const [key, seen] of current.entries) {
      const group = current.groups.get(key)!;
      const part = key[0] === 't' ? 'terms' : 'concepts';
      const size = d.groups[part];
      const g = Number(key.slice(1));
      const offsets = current.raw[part === 'terms' ? 'termGroups' : 'conceptGroups'] as Float64Array;
      const lengths = group.map((x) => JSON.stringify(x).length);
      const total = lengths.reduce((s, x) => s + x, 0);
      const bytes = offsets[g + 1] - offsets[g];
      let before = 0;
      lengths.forEach((l, i) => {
        if (seen.has(i))
          noteItemOf(
            current,
            part,
            g * size + i,
            offsets[g] + (bytes * before) / total,
            offsets[g] + (bytes * (before + l)) / total,
          );
        before += l;
      });
    }
    const r = rungs();
    for (const [k, v] of source.split) r.read.set(k, v);
    const split: Split = new Map();
    for (const [s, e] of mergeIntervals(current.asked)) addSplit(split, regions, pagesAt + s, pagesAt + e);
    for (const [k, v] of split) r.asked.set(k, v);
    // The head's and the hashes' reads are exact already (as question-bytes.ts counts them asked).
    for (const k of ['head', 'hashes']) r.asked.set(k, source.split.get(k) ?? 0);
    heads.push(source.split.get('head') ?? 0);
    cold.push(r);
    runs.push(current);
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  if (!facts || !trees) return;
  // The entropy model: each part's symbols' order-0 frequencies over every item the run used.
  const model = new Map<string, Float64Array>();
  for (const [part, items] of symbols) {
    const counts = new Float64Array(128);
    for (const s of items.values()) for (const x of s) counts[x]++;
    const total = counts.reduce((a, b) => a + b, 0);
    model.set(
      part,
      counts.map((c) => (c ? -Math.log2(c / total) : 0)),
    );
  }
  const itemBits = (part: string, item: number): number | undefined => {
    const s = symbols.get(part)?.get(item);
    const cost = model.get(part);
    if (!s || !cost) return undefined;
    let bits = 0;
    for (const x of s) bits += cost[x] + (x & 63);
    return bits;
  };
  const roots = HASH_BYTES * trees.size;
  const fixedOf = (i: number) => heads[i] + roots;
  runs.forEach((current, i) => {
    ladder(current.items, trees, facts, itemBits, cold[i]);
    const r = cold[i];
    for (const m of [r.b, r.c, ...r.data]) add(m, 'head', fixedOf(i));
  });
  // Later questions: what each uses that the ones before it did not.
  const memory: Memory = { leaves: new Map(), known: new Map() };
  const seen = new Map<string, Set<number>>();
  const later: Rungs[] = [];
  runs.forEach((current, i) => {
    const fresh = new Map<string, Map<number, [number, number]>>();
    for (const [tree, items] of current.items) {
      const before = seen.get(tree) ?? new Set<number>();
      seen.set(tree, before);
      const m = new Map<number, [number, number]>();
      for (const [item, range] of items) if (!before.has(item)) m.set(item, range);
      for (const item of items.keys()) before.add(item);
      fresh.set(tree, m);
    }
    const r = rungs();
    ladder(fresh, trees, facts, itemBits, r, memory);
    if (i > 0) later.push(r);
  });
  console.log(
    `## ${bundlePath}: ${d.chunkCount.toLocaleString('en-US')} chunks, ${d.conceptCount.toLocaleString('en-US')} ` +
      `concepts, pages version ${d.version}; ${picked.length} cold questions, ppr` +
      `${Object.keys(PARAMS).length > 0 ? ` (${JSON.stringify(PARAMS)})` : ''}, ` +
      `${firstPage ? 'the Ask view’s first page' : '`cli ask` (whole budget)'}; ${started}–` +
      `${new Date().toISOString().slice(11, 16)} UTC, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  printLadder('A cold question', cold, mean(heads) + roots, true);
  printLadder(
    `A later question (${later.length}: items the questions before it did not use)`,
    later,
    0,
    false,
  );
  // `open`'s arrays in detail.
  console.log(`\n### \`open\` by array (mean a question; ${kb(facts.section)} KB as stored)`);
  console.log(
    '| array | entries | used (mean) | B an entry today | entropy B an entry | (b) KB | (c) KB | later (b) KB |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, w] of facts.w) {
    const used = runs.map((r) => r.items.get(`open:${name}`)?.size ?? 0);
    const h = facts.h.get(name)! / 8;
    const laterUsed = mean(
      runs.slice(1).map((r, i) => {
        const before = new Set(
          runs.slice(0, i + 1).flatMap((x) => [...(x.items.get(`open:${name}`)?.keys() ?? [])]),
        );
        return [...(r.items.get(`open:${name}`)?.keys() ?? [])].filter((k) => !before.has(k)).length;
      }),
    );
    console.log(
      `| ${name} | ${trees.get(`open:${name}`)!.items.toLocaleString('en-US')} | ${Math.round(mean(used)).toLocaleString('en-US')} ` +
        `| ${w.toFixed(3)} | ${Number.isFinite(h) ? h.toFixed(3) : '–'} | ${((mean(used) * w) / 1000).toFixed(1)} | ` +
        `${((mean(used) * Math.min(w, h)) / 1000).toFixed(1)} | ${((laterUsed * w) / 1000).toFixed(1)} |`,
    );
  }
  console.log(
    `(e) before any entry: head ${kb(mean(heads))} KB as read today, ${trees.size} roots ${kb(roots)} KB; \`open\`'s ` +
      `scalars and unmapped arrays ${kb(facts.unmapped)} KB; the dictionaries' first keys whole ` +
      `${kb((facts.w.get('termFirst') ?? 0) * trees.get('open:termFirst')!.items + (facts.w.get('conceptFirst') ?? 0) * trees.get('open:conceptFirst')!.items)} KB`,
  );
  // `open`'s per-entry values inlined where they are named (each row's concepts with their df and degree code, each
  // posting with its chunk's BM25 lengths), at their entropy: what a layout with no `open` arrays to authenticate
  // would add to the rows and postings instead.
  const bytesAt = (name: string) => Math.min(facts.w.get(name) ?? 0, (facts.h.get(name) ?? 0) / 8);
  const rowRefs = runs.map((r) => r.refs.rows);
  const postingRefs = runs.map((r) => r.refs.postings);
  const inline = runs.map(
    (r) =>
      r.refs.rows * (bytesAt('df') + bytesAt('degreeCodes')) +
      r.refs.postings * (bytesAt('textLengths') + bytesAt('headingLengths')),
  );
  console.log(
    `(f) \`open\` inlined: the rows read name ${Math.round(mean(rowRefs)).toLocaleString('en-US')} concepts ` +
      `(df + degree code ${(bytesAt('df') + bytesAt('degreeCodes')).toFixed(3)} B each), the postings read ` +
      `${Math.round(mean(postingRefs)).toLocaleString('en-US')} chunks (BM25 lengths ` +
      `${(bytesAt('textLengths') + bytesAt('headingLengths')).toFixed(3)} B each), mean: ${kb(mean(inline))} KB ` +
      `(p50 ${kb(quantile(inline, 0.5))}, max ${kb(Math.max(...inline))})`,
  );
  // A layout with `open`'s values inlined: every other part at its best leaf size, the inlined values, and the
  // arrays that locate items (offsets, first entries, first keys, concept counts) read whole as today.
  const locate = LOCATING.reduce(
    (t, name) => t + (facts.w.get(name) ?? 0) * (trees.get(`open:${name}`)?.items ?? 0),
    0,
  );
  const denormalized = cold.map((r, i) => {
    let t = inline[i] + locate;
    for (const part of ORDER)
      if (part !== 'open')
        t += Math.min(...LEAVES.map((_, li) => (r.data[li].get(part) ?? 0) + (r.proof[li].get(part) ?? 0)));
    return t;
  });
  console.log(
    `(f) a cold question so, every other part at its best leaf size and the locating arrays whole ` +
      `(${LOCATING.join(', ')}: ${kb(locate)} KB): p50 / max / mean ${stats(denormalized)} KB`,
  );
  // Rung (g): today's layout, block for block, with `open`'s scoring arrays gone from the opening and their values
  // inlined where they are named; the rows' and postings' reads grow in proportion to their used items' bytes ((b):
  // their blocks, paths and gap fill grow with them). As varints (realistic) and at (f)'s entropy (a floor for any coding).
  const moved = ['df', 'degreeCodes', 'textLengths', 'headingLengths'].reduce(
    (t, name) => t + (facts.w.get(name) ?? 0) * (trees.get(`open:${name}`)?.items ?? 0),
    0,
  );
  const grown = (r: Rungs, part: string, added: number) =>
    ((r.read.get(part) ?? 0) * added) / Math.max(1, r.b.get(part) ?? 0);
  const inlined = (entropy: boolean) =>
    cold.map((r, i) => {
      const u = runs[i];
      const rowsAdded = entropy ? u.refs.rows * (bytesAt('df') + bytesAt('degreeCodes')) : u.inline.rows;
      const postingsAdded = entropy
        ? u.refs.postings * (bytesAt('textLengths') + bytesAt('headingLengths'))
        : u.inline.postings;
      return sum(r.read) - moved + grown(r, 'rows', rowsAdded) + grown(r, 'postings', postingsAdded);
    });
  console.log(
    `(g) today's layout with \`open\`'s df, degree codes and BM25 lengths (${kb(moved)} KB of it) inlined: the rows' items grow by ` +
      `${kb(mean(runs.map((r) => r.inline.rows)))} KB as varints (${kb(mean(rowRefs.map((x) => x * (bytesAt('df') + bytesAt('degreeCodes')))))} at entropy), postings ` +
      `${kb(mean(runs.map((r) => r.inline.postings)))} (${kb(mean(postingRefs.map((x) => x * (bytesAt('textLengths') + bytesAt('headingLengths')))))}), ` +
      `their reads grown as their items; a cold question p50 / max / mean: varints ${stats(inlined(false))} KB, ` +
      `at entropy ${stats(inlined(true))} KB (today's read ${stats(cold.map((r) => sum(r.read)))})`,
  );
  // Items a question uses.
  const count = (tree: string) => runs.map((r) => r.items.get(tree)?.size ?? 0);
  console.log('\n### Items a cold question uses (p50 / max / mean)');
  for (const tree of ['rows', 'lists', 'postings', 'terms', 'concepts', 'records', 'evidence', 'degrees']) {
    const v = count(tree);
    console.log(`- ${tree}: ${quantile(v, 0.5)} / ${Math.max(...v)} / ${Math.round(mean(v))}`);
  }
  // The walk's share of the rows, and what not pushing hubs would leave.
  console.log('\n### The walk: pushed concepts and the rows their lists name (mean a question)');
  const rowBytes = (r: Run, chunks: Set<number>) => {
    const rows = r.items.get('rows')!;
    let b = 0;
    for (const k of chunks) {
      const x = rows.get(k);
      if (x) b += x[1] - x[0];
    }
    return b;
  };
  const listBytes = (r: Run, concepts: Iterable<number>) => {
    const lists = r.items.get('lists');
    let b = 0;
    for (const c of concepts) {
      const x = lists?.get(c);
      if (x) b += x[1] - x[0];
    }
    return b;
  };
  console.log(
    '| pushed concepts of df ≤ | pushed | rows their lists name | those rows KB | their lists KB |',
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const cap of [Infinity, ...HUBS]) {
    const stat = runs.map((r) => {
      const df = r.raw.df as Uint32Array;
      const kept = [...r.pushed].filter(([u]) => df[u] <= cap);
      const chunks = new Set<number>();
      for (const [, list] of kept) for (const k of list) chunks.add(k);
      return [
        kept.length,
        chunks.size,
        rowBytes(r, chunks),
        listBytes(
          r,
          kept.map(([u]) => u),
        ),
      ];
    });
    console.log(
      `| ${Number.isFinite(cap) ? cap.toLocaleString('en-US') : 'all (today)'} | ${Math.round(mean(stat.map((s) => s[0])))} | ` +
        `${Math.round(mean(stat.map((s) => s[1])))} | ${kb(mean(stat.map((s) => s[2])))} | ${kb(mean(stat.map((s) => s[3])))} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
