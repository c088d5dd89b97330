// A structure-aware fuzzer for the paged format and the range reader (issue 43). Each case takes the fixture's honest
// pages (hostilePages.ts) or its bundle, changes one field of the locator, the manifest, the directory, the block
// table, the `open` arrays, a row group, a chunk list or a record (an extreme, off by one, two swapped, cut short),
// keeps every digest right, and opens and asks as the app does; or reads the honest bundle by ranges from a loopback
// host that lies (lyingHost.ts). The invariant: each case is answered (the pages' own answer) or refused with a
// message naming the part, in bounded time, with memory bounded by the bytes present. Run in a worker under a time
// limit (boundedRun.ts) by test/unit/paged/fuzzPages.test.ts and, with many more cases, fuzzPages.scale.test.ts.
import { gunzipSync, gzipSync } from 'fflate';
import { Sha256 } from '../../src/core/bundle/sha256.ts';
import { PagedLibrary } from '../../src/core/paged/library.ts';
import { openPagedBundle } from '../../src/core/paged/openBundle.ts';
import { MemoryRangeSource, type RangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { deflateWithLength } from '../../src/core/paged/recordCoding.ts';
import { HttpRangeSource } from '../../src/services/bundleBytes/rangeSources.ts';
import {
  assemble,
  honestPages,
  pagesBundle,
  piecesOf,
  recordDictionary,
  recordGroup,
  setRecordGroup,
  setStoredDictionary,
  storedDictionary,
  type PagesPieces,
  type WrittenPagesLike,
} from './hostilePages.ts';
import { lyingHost, type Lie } from './lyingHost.ts';
import { seededRandom } from './seededRandom.ts';

const QUESTIONS = ['Which film came out first, and who directed it?', 'Where was the director born?'];

/** Values a field is set to: extremes, off-by-one around its own value, and values of the wrong kind. */
export function extremes(own: number): unknown[] {
  return [
    0,
    1,
    -1,
    own - 1,
    own + 1,
    own * 2,
    2 ** 31 - 1,
    2 ** 32 - 1,
    2 ** 53,
    NaN,
    Infinity,
    -Infinity,
    0.5,
    1e-300,
  ];
}
export const WRONG_KINDS: unknown[] = [null, 'x', [], {}, true, { length: 2e9 }, [1, 2, 3], -1, 1e308];

export interface FuzzReport {
  cases: number;
  answered: number;
  refused: number;
  /** Cases that broke the invariant: a message that names no part, or a crash of the wrong kind. */
  bad: Array<{ name: string; outcome: string }>;
  /** The slowest case and its milliseconds. */
  slowest: { name: string; ms: number };
  /** Peak of the process's heap and array buffers over the run, in MB. */
  peakMB: number;
  ms: number;
}

/** A message names the part it refuses: pages.bin, its hashes, the manifest, a part by name, or the host's URL. */
const NAMES_A_PART =
  /pages\.bin|pages\.sha256|manifest|part [\w.]+|bundle|directory|crafted|http:\/\/127\.0\.0\.1:\d+\/lib\.bundle/;

const CRASH =
  /Cannot read|is not a function|is not iterable|Invalid array length|Invalid typed array|call stack/;

export type Case = { name: string; run: () => Promise<unknown> };

export async function ask(library: PagedLibrary): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUESTIONS)
    for (const mode of ['ppr', 'bm25']) {
      const { hits } = await library.search(q, mode, 800);
      out.push(hits.map((h) => h.chunkId).join(' '));
    }
  return out;
}

export async function openAndAsk(written: WrittenPagesLike): Promise<string[]> {
  const library = await PagedLibrary.open(
    new MemoryRangeSource(written.data, 'crafted.bundle'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
  return ask(library);
}

async function bundleAndAsk(source: RangeSource): Promise<string[]> {
  const opened = await openPagedBundle(source, createTermAnalyzer());
  if (!opened) throw new Error('crafted.bundle: no pages');
  return ask(opened.library);
}

export function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

/**
 * The directory's fields with a value of their own (groups and sections are changed apart): `analyzer` was added
 * for the stemmer (a question is analysed as the words were), `format` and `version` say which reader reads it,
 * `shares` the parameters version 3 computes the shares with, `hashBytes` the length of each block's hash (16 or 32),
 * `listsInRows` whether version 4's rows keep the concept lists.
 */
const DIRECTORY_FIELDS = [
  'blockSize',
  'chunkCount',
  'conceptCount',
  'termCount',
  'headingCopies',
  'thetaCo',
  'analyzer',
  'format',
  'version',
  'shares',
  'hashBytes',
  'listsInRows',
  'hashPages',
  'sectionBlocks',
  'openResiduals',
  'openCoding',
  'rowBlocks',
  'recordCoding',
  'scriptChunks',
  'listCoding',
  'evidenceArrays',
  'blockPaths',
  'postingsCoding',
  'rowsCoding',
  'rowsDelimited',
] as const;

/** Sets one directory field to an extreme, a wrong kind, another version, or removes it; names the change. */
function mutateDirectoryField(
  d: Record<string, unknown>,
  field: (typeof DIRECTORY_FIELDS)[number],
  random: () => number,
): string {
  const own = typeof d[field] === 'number' ? (d[field] as number) : 1;
  // Versions: the ones this app knows (an analyzer version it has, answered with it), one past them, none at all.
  // Block hash lengths: the two a reader takes (assemble() hashes with the one set), none at all (32).
  const versions =
    field === 'analyzer' || field === 'version'
      ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 99, undefined]
      : field === 'hashBytes'
        ? [16, 32, undefined]
        : field === 'listsInRows'
          ? [true, false, undefined]
          : [];
  const value = pick(random, [...extremes(own), ...WRONG_KINDS, ...versions]);
  // Hash pages (round thirteen): their size, or their top list cut, or version 7's levels, changed, or the whole field.
  if (field === 'hashPages' && d.hashPages && typeof d.hashPages === 'object' && random() < 0.5) {
    const hp = d.hashPages as { size: number; top: string; levels?: unknown };
    const which = random();
    if (which < 0.25 && hp.levels !== undefined) {
      const levels = pick(random, [
        ...extremes(128).map((x) => [x]),
        ...WRONG_KINDS,
        [],
        [128, 128],
        [128, 128, 128, 128, 128],
        [16],
        undefined,
      ]);
      d.hashPages = { ...hp, levels };
      return `directory.hashPages.levels = ${levels === undefined ? '(absent)' : JSON.stringify(levels)}`;
    }
    if (which < 0.6) {
      const size = pick(random, [...extremes(hp.size), ...WRONG_KINDS, 256, 512, 2048]);
      d.hashPages = { ...hp, size };
      return `directory.hashPages.size = ${JSON.stringify(size)}`;
    }
    const cut = 1 + Math.floor(random() * hp.top.length);
    d.hashPages = { ...hp, top: hp.top.slice(cut) + hp.top.slice(0, cut) };
    return `directory.hashPages.top rotated by ${cut}`;
  }
  // Version 11's per-script chunk counts: one count changed (an extreme, a wrong kind, past the chunks, 0), a key
  // more, or the whole field; on a version 10 part the field is refused, so half the time the version says 11.
  if (field === 'scriptChunks' && random() < 0.7) {
    const n = typeof d.chunkCount === 'number' ? d.chunkCount : 1;
    const counts = {
      ...((d.scriptChunks as Record<string, unknown> | undefined) ?? { other: n, cjk: Math.max(1, n >> 1) }),
    };
    const which = random();
    if (which < 0.15) counts[pick(random, ['__proto__', 'latin', 'hangul'])] = 1;
    else {
      const key = which < 0.55 ? 'other' : 'cjk';
      counts[key] = pick(random, [...extremes(n), ...WRONG_KINDS, 0, 1, n, n + 1, undefined]);
    }
    d.scriptChunks = counts;
    if (random() < 0.5) d.version = 11;
    return `directory.scriptChunks = ${JSON.stringify(counts)}, version ${String(d.version)}`;
  }
  // Version 12's packed lists: their block's bytes changed (the lists then parsed from other first bytes, `open`'s
  // listStarts counting other blocks), a key more, or the whole field; half the time the version says 12.
  if (field === 'listCoding' && random() < 0.7) {
    const coding = { ...((d.listCoding as Record<string, unknown> | undefined) ?? { blockBytes: 128 }) };
    if (random() < 0.15) coding[pick(random, ['__proto__', 'rows', 'bytes'])] = 1;
    else
      coding.blockBytes = pick(random, [
        ...extremes(Number(coding.blockBytes) || 128),
        ...WRONG_KINDS,
        15,
        16,
        64,
        256,
        65536,
        65537,
        undefined,
      ]);
    d.listCoding = coding;
    if (random() < 0.5) d.version = 12;
    return `directory.listCoding = ${JSON.stringify(coding)}, version ${String(d.version)}`;
  }
  // Version 13's paths: the zones changed (another zone, none, two, a wrong kind; version 17's lists and rows), a key
  // more, or the whole field; half the time the version says 12 or 16. assemble() writes the paths whenever the field
  // is there (the lists' too when it names them; the reader refuses what it does not read).
  if (field === 'blockPaths' && random() < 0.7) {
    const paths = { ...((d.blockPaths as Record<string, unknown> | undefined) ?? { zones: ['rows'] }) };
    if (random() < 0.2) paths[pick(random, ['__proto__', 'bytes', 'rows'])] = 48;
    else
      paths.zones = pick(random, [
        ...WRONG_KINDS,
        [],
        ['lists'],
        ['rows', 'rows'],
        ['rows', 'lists'],
        ['lists', 'rows'],
        ['lists', 'rows', 'rows'],
        'rows',
        ['rows'],
        undefined,
      ]);
    d.blockPaths = paths;
    if (random() < 0.5) d.version = pick(random, [12, 16]);
    return `directory.blockPaths = ${JSON.stringify(paths)}, version ${String(d.version)}`;
  }
  // Version 10's records coding: the stored dictionary's length changed (its bytes as they are), or the whole field.
  if (field === 'recordCoding' && d.recordCoding && random() < 0.7) {
    const own = (d.recordCoding as { dictionary: number }).dictionary;
    const dictionary = pick(random, [...extremes(own), ...WRONG_KINDS, 65537, undefined]);
    d.recordCoding = dictionary === undefined ? {} : { dictionary };
    return `directory.recordCoding.dictionary = ${dictionary === undefined ? '(absent)' : JSON.stringify(dictionary)}`;
  }
  // Version 8's block sizes by section: one section's changed, a name that is no section, or the whole field.
  if (field === 'sectionBlocks' && random() < 0.6) {
    const blocks = { ...((d.sectionBlocks as Record<string, unknown> | undefined) ?? {}) };
    const which = random();
    const name =
      which < 0.15
        ? pick(random, ['__proto__', 'constructor', 'pages', 'Rows', ''])
        : pick(random, [
            'rows',
            'rows',
            'open',
            'records',
            'postings',
            'lists',
            'degrees',
            'terms',
            'concepts',
          ]);
    const size = pick(random, [
      ...extremes(blocks[name] === undefined ? 256 : Number(blocks[name])),
      ...WRONG_KINDS,
      128,
      256,
      512,
      1 << 20,
      (1 << 20) + 1,
      127,
    ]);
    if (name === '__proto__') Object.defineProperty(blocks, name, { value: size, enumerable: true });
    else blocks[name] = size;
    d.sectionBlocks = blocks;
    return `directory.sectionBlocks.${name || '(empty name)'} = ${JSON.stringify(size) ?? '(absent)'}`;
  }
  // Version 10's residual coding of `open`: its slope changed (open.tokens then lie by that much), a key more, or the
  // whole field (below).
  if (field === 'openResiduals' && random() < 0.6) {
    const r = { ...((d.openResiduals as Record<string, unknown> | undefined) ?? {}) };
    const own = typeof r.tokensPerLength === 'number' ? r.tokensPerLength : 65536;
    if (random() < 0.2) r[pick(random, ['__proto__', 'rows', 'tokens'])] = 1;
    else
      r.tokensPerLength = pick(random, [
        ...extremes(own),
        ...WRONG_KINDS,
        2 ** 24,
        2 ** 24 + 1,
        0,
        undefined,
      ]);
    d.openResiduals = r;
    return `directory.openResiduals = ${JSON.stringify(r)}`;
  }
  // Version 11's coding of `open`: one slope changed (its array then lies by that much), documentRuns flipped or of
  // another kind, a key more, or the whole field (below).
  if (field === 'openCoding' && random() < 0.6) {
    const c = { ...((d.openCoding as Record<string, unknown> | undefined) ?? {}) };
    const key = pick(random, [
      'countsPerLength',
      'rowBytesPerCount',
      'recordBytesPerLength',
      'listBytesPerBit',
      'documentRuns',
    ]);
    const own = typeof c[key] === 'number' ? c[key] : 65536;
    if (random() < 0.15) c[pick(random, ['__proto__', 'rows', 'tokensPerLength'])] = 1;
    else if (key === 'documentRuns') c[key] = pick(random, [0, 1, 2, -1, 0.5, '1', true, null, undefined]);
    else c[key] = pick(random, [...extremes(own), ...WRONG_KINDS, 2 ** 24, 2 ** 24 + 1, 0, undefined]);
    d.openCoding = c;
    return `directory.openCoding = ${JSON.stringify(c)}`;
  }
  // Version 10's blocks of whole rows: their size or their count changed (kept as set: assemble() recounts neither),
  // or the whole field.
  if (field === 'rowBlocks' && random() < 0.7) {
    const rows = { ...((d.rowBlocks as Record<string, unknown> | undefined) ?? { size: 128, count: 1 }) };
    const key = random() < 0.5 ? 'size' : 'count';
    const near = Number(rows[key]);
    const changed = pick(random, [
      ...extremes(Number.isFinite(near) ? near : 128),
      ...WRONG_KINDS,
      near + 1,
      near - 1,
      63,
      64,
      1 << 20,
      (1 << 20) + 1,
      undefined,
    ]);
    if (changed === undefined) delete rows[key];
    else rows[key] = changed;
    d.rowBlocks = rows;
    return `directory.rowBlocks.${key} = ${changed === undefined ? '(absent)' : JSON.stringify(changed)}`;
  }
  // Version 12's evidence blocks: their chunks a block, count or bytes changed (kept as set: assemble() then hashes
  // them as version 11 unless `open` still cuts the bytes so), a key more, or the whole field (below).
  if (field === 'evidenceArrays' && random() < 0.7) {
    const e = {
      ...((d.evidenceArrays as Record<string, unknown> | undefined) ?? { entries: 16, count: 1, bytes: 1 }),
    };
    const key = pick(random, ['entries', 'count', 'bytes']);
    const near = Number(e[key]);
    if (random() < 0.15) e[pick(random, ['__proto__', 'size', 'tokens'])] = 1;
    else
      e[key] = pick(random, [
        ...extremes(Number.isFinite(near) ? near : 16),
        ...WRONG_KINDS,
        near + 1,
        near - 1,
        1 << 16,
        (1 << 16) + 1,
        undefined,
      ]);
    d.evidenceArrays = e;
    return `directory.evidenceArrays = ${JSON.stringify(e)}`;
  }
  // Version 16's rows that carry their counts: another order, a key more, or the whole field (below); half the time
  // the version says 15.
  if (field === 'rowsDelimited' && random() < 0.6) {
    const order = pick(random, [4, 5, 6, 0, -1, 2 ** 31, ...WRONG_KINDS]);
    d.rowsDelimited = random() < 0.2 ? { countOrder: 5, k: 1 } : { countOrder: order };
    if (random() < 0.5) d.version = 15;
    return `directory.rowsDelimited = ${JSON.stringify(d.rowsDelimited)}, version ${String(d.version)}`;
  }
  // Version 3's share parameters: one of them changed, or the whole field.
  if (field === 'shares' && d.shares && typeof d.shares === 'object' && random() < 0.5) {
    const key = random() < 0.5 ? 'tfSpread' : 'chunkScorePower';
    d.shares = { ...d.shares, [key]: value };
    return `directory.shares.${key} = ${value === undefined ? '(absent)' : JSON.stringify(value)}`;
  }
  if (value === undefined) delete d[field];
  else d[field] = value;
  return `directory.${field} = ${value === undefined ? '(absent)' : JSON.stringify(value)}`;
}

/** One mutation of the pieces, named. */
function mutatePieces(
  p: PagesPieces,
  random: () => number,
): { name: string; keepSections?: boolean; keepHashPages?: boolean; keepRowBlocks?: boolean } {
  const kind = Math.floor(random() * 8);
  const open = p.open as unknown as Record<string, unknown>;
  if (kind === 0) {
    // A directory field.
    const d = p.directory as unknown as Record<string, unknown>;
    // A version 13 to 16 part's own field (its rows' paths, its postings' and rows' coding, its rows' counts) half the time:
    // one field of 24 would seldom be it.
    const own = [
      ...(d.blockPaths !== undefined ? (['blockPaths'] as const) : []),
      ...(d.postingsCoding !== undefined ? (['postingsCoding'] as const) : []),
      ...(d.rowsCoding !== undefined ? (['rowsCoding'] as const) : []),
      ...(d.rowsDelimited !== undefined ? (['rowsDelimited'] as const) : []),
    ];
    const field = own.length > 0 && random() < 0.5 ? pick(random, own) : pick(random, DIRECTORY_FIELDS);
    return {
      name: mutateDirectoryField(d, field, random),
      keepHashPages: field === 'hashPages',
      keepRowBlocks: field === 'rowBlocks',
    };
  }
  if (kind === 1) {
    const g = p.directory.groups as unknown as Record<string, unknown>;
    const field = pick(random, ['records', 'terms', 'concepts', 'rows']);
    const value = pick(random, extremes(g[field] as number));
    g[field] = value;
    return { name: `directory.groups.${field} = ${String(value)}` };
  }
  if (kind === 2) {
    // A section's place in the directory (the block table as it is).
    const section = pick(
      random,
      Object.keys(p.directory.sections),
    ) as keyof PagesPieces['directory']['sections'];
    const s = p.directory.sections[section];
    const i = random() < 0.5 ? 0 : 1;
    const value = pick(random, extremes(s[i]));
    s[i] = value as number;
    return { name: `directory.sections.${section}[${i}] = ${String(value)}`, keepSections: true };
  }
  const arrays = Object.keys(open).filter((k) => ArrayBuffer.isView(open[k]) || Array.isArray(open[k]));
  if ((kind === 3 || kind === 4 || kind === 5) && 'singleCode' in open && random() < 0.25) {
    // Version 9's one number in `open`: the bound on the degrees of the concepts in one chunk.
    const value = pick(random, [...extremes(Number(open.singleCode)), ...WRONG_KINDS, undefined]);
    if (value === undefined) delete open.singleCode;
    else open.singleCode = value;
    return { name: `open.singleCode = ${value === undefined ? '(absent)' : String(value)}` };
  }
  if (kind === 3 || kind === 4) {
    // An element of an `open` array: an extreme, or two swapped.
    const key = pick(random, arrays);
    const array = open[key] as unknown as { length: number; [i: number]: unknown };
    if (array.length === 0) return { name: `open.${key} (empty, unchanged)` };
    const i = Math.floor(random() * array.length);
    if (kind === 4 && array.length > 1) {
      const j = Math.floor(random() * array.length);
      [array[i], array[j]] = [array[j], array[i]];
      return { name: `open.${key}[${i}] ⇄ [${j}]` };
    }
    const value = pick(random, Array.isArray(array) ? WRONG_KINDS : extremes(Number(array[i])));
    array[i] = value;
    return { name: `open.${key}[${i}] = ${String(value)}` };
  }
  if (kind === 5) {
    // An `open` array cut short or grown by one, or replaced by another kind.
    const key = pick(random, arrays);
    const array = open[key] as { slice(a: number, b?: number): unknown; length: number };
    const how = Math.floor(random() * 3);
    if (how === 0) open[key] = array.slice(0, Math.max(0, array.length - 1));
    else if (how === 1) open[key] = pick(random, WRONG_KINDS);
    else delete open[key];
    return { name: `open.${key} ${['cut by one', 'of another kind', 'missing'][how]}` };
  }
  if (kind === 6 && p.directory.recordCoding && random() < 0.3) {
    // Version 10's stored dictionary: a byte of it flipped, its inflated bytes changed or grown past 32 KiB (deflated
    // again), or it cut short.
    const stored = storedDictionary(p);
    const how = random();
    if (how < 0.4 && stored.length > 0) {
      const at = Math.floor(random() * stored.length);
      const bytes = stored.slice();
      bytes[at] = pick(random, [0x00, 0xff, 0x80, 0x7f, bytes[at] ^ 1]);
      setStoredDictionary(p, bytes);
      return { name: `records dictionary (stored)[${at}] = ${bytes[at]}` };
    }
    if (how < 0.7) {
      const dictionary = recordDictionary(p);
      const grown = random() < 0.5;
      const changed = grown ? new Uint8Array(32 * 1024 + 1 + Math.floor(random() * 8)) : dictionary.slice();
      if (grown) changed.set(dictionary);
      else if (changed.length > 0) changed[Math.floor(random() * changed.length)] ^= 0x20;
      setStoredDictionary(p, deflateWithLength(changed));
      return {
        name: `records dictionary ${grown ? `grown to ${changed.length} bytes` : 'with a byte changed'}`,
      };
    }
    setStoredDictionary(p, stored.slice(0, Math.max(0, stored.length - 1 - Math.floor(random() * 8))));
    return { name: 'records dictionary cut short' };
  }
  if (kind === 6) {
    // A byte of a binary section (rows, lists, postings, degrees): flipped, or the section cut short; version 15's
    // rows (their codes, rowsCoding.ts) half the time, version 14's postings (postingsCoding.ts) half of the rest.
    const section =
      p.directory.rowsCoding && random() < 0.5
        ? 'rows'
        : p.directory.postingsCoding && random() < 0.5
          ? 'postings'
          : pick(random, ['rows', 'lists', 'postings', 'degrees'] as const);
    const bytes = p.sections[section];
    if (bytes.length === 0) return { name: `${section} (empty, unchanged)` };
    if (section === 'rows' && p.directory.listsInRows && random() < 0.5) {
      // Rows that keep the lists are one gzip'd group: a byte of what it inflates to (the coded lists of version 6,
      // the rows with counts of version 4), or that cut short, gzip'd again, so the decoder itself meets the damage.
      const raw = gunzipSync(bytes);
      let name: string;
      let changed: Uint8Array;
      if (random() < 0.2) {
        changed = raw.slice(0, Math.max(0, raw.length - 1 - Math.floor(random() * 8)));
        name = 'rows inflated, cut short';
      } else {
        changed = raw.slice();
        const at = Math.floor(random() * raw.length);
        changed[at] = pick(random, [0x00, 0xff, 0x80, 0x7f, raw[at] ^ 1, raw[at] ^ 0x10]);
        name = `rows inflated[${at}] = ${changed[at]}`;
      }
      p.sections.rows = gzipSync(changed);
      p.open.rowGroups = Float64Array.from([0, p.sections.rows.length]);
      return { name };
    }
    if (random() < 0.2) {
      p.sections[section] = bytes.slice(0, bytes.length - 1 - Math.floor(random() * 8));
      return { name: `${section} cut short` };
    }
    const at = Math.floor(random() * bytes.length);
    bytes[at] = pick(random, [0x00, 0xff, 0x80, 0x7f, bytes[at] ^ 1]);
    return { name: `${section}[${at}] = ${bytes[at]}` };
  }
  if (p.directory.recordCoding) {
    // Version 10: a field of a positional record (recordCoding.ts codeRecords), or the group a record short.
    const records = recordGroup(p, 0) as unknown[][];
    const i = Math.floor(random() * records.length);
    const field = Math.floor(random() * 12);
    const value = pick(random, [...WRONG_KINDS, ...extremes(0), [2e9], { length: 2e9 }]);
    if (random() < 0.1) records.length = Math.max(0, records.length - 1);
    else if (field === 11) records[i] = [...records[i], 0];
    else records[i] = records[i].map((x, j) => (j === field ? value : x));
    setRecordGroup(p, 0, records);
    return { name: `positional record ${i}[${field}] = ${JSON.stringify(value)}` };
  }
  // A field of a record.
  const records = recordGroup(p, 0) as Array<Record<string, unknown>>;
  const i = Math.floor(random() * records.length);
  const field = pick(random, [
    'id',
    'docId',
    'title',
    'text',
    'tokens',
    'start',
    'sentences',
    'path',
    'pageStarts',
  ]);
  const value = pick(random, [...WRONG_KINDS, ...extremes(0)]);
  if (random() < 0.1) records.length = Math.max(0, records.length - 1);
  else records[i] = { ...records[i], [field]: value };
  setRecordGroup(p, 0, records);
  return { name: `record ${i}.${field} = ${JSON.stringify(value)}` };
}

/** A bundle's manifest as JSON (a version 3 bundle: the locator's offset, then the MNFT frame). */
export function manifestOf(bytes: Uint8Array): { parts: Array<Record<string, unknown>> } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = view.getUint32(bytes.length - 12, true);
  const length = view.getUint32(at + 4, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(at + 12, at + 12 + length))) as {
    parts: Array<Record<string, unknown>>;
  };
}

/**
 * The bundle with `manifest` framed and digested as the writer does (a forged manifest, not a damaged one), written
 * after the old one (kept as it is) and the locator pointing at it.
 */
export function withManifest(bytes: Uint8Array, manifest: unknown): Uint8Array {
  const tail = bytes.length - 12;
  const body = new TextEncoder().encode(JSON.stringify(manifest));
  const frame = new Uint8Array(12 + body.length + 32);
  frame.set(new TextEncoder().encode('MNFT'));
  new DataView(frame.buffer).setUint32(4, body.length, true);
  new DataView(frame.buffer).setUint32(8, ~body.length >>> 0, true);
  frame.set(body, 12);
  frame.set(new Sha256().update(body).digest(), 12 + body.length);
  const joined = new Uint8Array(tail + frame.length + 12);
  joined.set(bytes.subarray(0, tail));
  joined.set(frame, tail);
  const jv = new DataView(joined.buffer);
  jv.setUint32(tail + frame.length, tail, true);
  joined.set(new TextEncoder().encode('END.'), tail + frame.length + 8);
  return joined;
}

/** One mutation of a whole bundle's bytes: the locator, the manifest's frame or its JSON, the hashes part. */
async function mutateBundle(
  bytes: Uint8Array,
  random: () => number,
): Promise<{ name: string; bytes: Uint8Array }> {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const tail = out.length - 12;
  const kind = Math.floor(random() * 4);
  if (kind === 0) {
    const at = view.getUint32(tail, true);
    const value = pick(random, [0, 1, at - 1, at + 1, 2 ** 32 - 1, out.length]);
    view.setUint32(tail, value >>> 0, true);
    if (random() < 0.3) view.setUint32(tail + 4, 1, true);
    return { name: `locator = ${value}`, bytes: out };
  }
  if (kind === 1) {
    // The manifest JSON: a part's offset, length or meta, digest recomputed (a forged manifest, not a damaged one).
    const at = view.getUint32(tail, true);
    const length = view.getUint32(at + 4, true);
    const manifest = JSON.parse(new TextDecoder().decode(out.subarray(at + 12, at + 12 + length))) as {
      parts: Array<Record<string, unknown>>;
    };
    const part = pick(random, manifest.parts);
    const field = pick(random, [
      'offset',
      'length',
      'meta',
      'encoding',
      'name',
      'sha256',
      'kind',
      'count',
      'rawLength',
      // A field of the pages' directory as the manifest holds it (the part's meta), the analyzer among them.
      'meta.',
      'meta.',
      // A field of the manifest's head.
      'formatVersion',
      'params',
      'counts',
    ]);
    let change: string;
    const pagesMeta = manifest.parts.find((p) => p.name === 'pages.bin')?.meta as Record<string, unknown>;
    if (field === 'meta.' && pagesMeta) {
      change = `pages.bin meta ${mutateDirectoryField(pagesMeta, pick(random, DIRECTORY_FIELDS), random)}`;
    } else if (field === 'formatVersion' || field === 'params' || field === 'counts') {
      const head = manifest as unknown as Record<string, unknown>;
      const value = pick(random, [...extremes(Number(head[field]) || 0), ...WRONG_KINDS]);
      head[field] = value;
      change = `${field} = ${JSON.stringify(value)}`;
    } else {
      const value = pick(random, [...extremes(Number(part[field]) || 0), ...WRONG_KINDS]);
      part[field] = value;
      change = `${String(part.name)}.${field} = ${JSON.stringify(value)}`;
    }
    return { name: `manifest ${change}`, bytes: withManifest(out, manifest) };
  }
  if (kind === 2) {
    const at = Math.floor(random() * out.length);
    out[at] ^= 0xff;
    return { name: `byte ${at} flipped`, bytes: out };
  }
  const cut = Math.floor(random() * out.length);
  return { name: `cut to ${cut} bytes`, bytes: out.subarray(0, cut) };
}

function casesOfPages(count: number, seed: number): Case[] {
  const random = seededRandom(seed);
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    // Version 13 (its rows' paths: the large layout) two hundredths, version 12 a hundredth (half in the large layout:
    // its packed lists) and version 11 two hundredths
    // (half), version 10 a twentieth (half in the large layout), version 9 a twentieth and version 8 a tenth (each half in a large library's layout:
    // 512-byte blocks, the rows one chunk a group in 128-byte blocks of their own, the lists in their section, under a
    // tree of hash pages of two levels; half keeping its lists in its rows, coded by concept, in its 1 KiB blocks),
    // version 7 a tenth (the same halves, its rows in 512-byte blocks), versions 6 and 5 (the large layout) a tenth
    // each, version 4 (its lists in its rows, coded by chunk) a tenth, version 3 a tenth, version 2 three twentieths
    // and version 1 a twentieth.
    // Version 14 (its postings coded, postingsCoding.ts) a twenty-fifth of the cases, drawn apart (half large), and
    // version 15 (its rows coded, rowsCoding.ts: the large layout's) a twenty-fifth of the others (three quarters
    // large).
    // Version 16 (its rows carry their counts, rowsCoding.ts, and `open` its row blocks' index, rowBlockIndex.ts: the
    // large layout's) a twentieth of the rest (three quarters large).
    // Version 17 (the lists' blocks carry paths too, blockPaths zones lists and rows: the large layout's) a twentieth
    // of the rest (three quarters large).
    const fourteen = random() < 0.04;
    const fifteen = !fourteen && random() < 0.04;
    const sixteen = !fourteen && !fifteen && random() < 0.05;
    const seventeen = !fourteen && !fifteen && !sixteen && random() < 0.05;
    const draw = random();
    const version = seventeen
      ? 17
      : sixteen
        ? 16
        : fifteen
          ? 15
          : fourteen
            ? 14
            : draw < 0.02
              ? 13
              : draw < 0.03
                ? 12
                : draw < 0.05
                  ? 11
                  : draw < 0.1
                    ? 10
                    : draw >= 0.9
                      ? 9
                      : draw < 0.2
                        ? 8
                        : draw < 0.3
                          ? 7
                          : draw < 0.4
                            ? 6
                            : draw < 0.5
                              ? 5
                              : draw < 0.6
                                ? 4
                                : draw < 0.7
                                  ? 3
                                  : draw < 0.85
                                    ? 2
                                    : 1;
    const large =
      version === 5 ||
      version === 13 ||
      (version === 14 && draw < 0.5) ||
      (version === 15 && draw < 0.75) ||
      (version === 16 && draw < 0.75) ||
      (version === 17 && draw < 0.75) ||
      (version === 12 && draw < 0.025) ||
      (version === 11 && draw < 0.04) ||
      (version === 10 && draw < 0.075) ||
      (version === 9 && draw < 0.95) ||
      (version === 8 && draw < 0.15) ||
      (version === 7 && draw < 0.25) ||
      (version === 6 && draw < 0.35);
    const caseSeed = Math.floor(random() * 2 ** 31);
    cases.push({
      name: `pages v${version} #${i}`,
      run: async () => {
        const r = seededRandom(caseSeed);
        const p = piecesOf(
          await (large
            ? // Version 8's large layout: the rows in 128-byte blocks of their own (the fixture's rows are ~2 KB);
              // version 10's in blocks of whole rows of at most 128 bytes (rowBlocks), the lists in 128-byte blocks.
              honestPages(
                version,
                512,
                0,
                version >= 10 ? { lists: 128 } : version >= 8 ? { rows: 128 } : undefined,
                version >= 12 ? 16 : 0,
              )
            : version >= 7
              ? honestPages(version, 1024)
              : honestPages(version)),
        );
        // A tree of two levels (the writer gives a library this small one): assemble() builds the part for it.
        if (version >= 7 && large) p.directory.hashPages = { ...p.directory.hashPages!, levels: [128] };
        const { name, keepSections, keepHashPages, keepRowBlocks } = mutatePieces(p, r);
        cases[i].name = `pages v${version} ${name}`;
        if (process.env.FUZZ_LOG) process.stderr.write(`start: ${cases[i].name}\n`);
        return openAndAsk(assemble(p, { keepSections, keepHashPages, keepRowBlocks }));
      },
    });
  }
  return cases;
}

function casesOfBundles(count: number, seed: number): Case[] {
  const random = seededRandom(seed);
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const caseSeed = Math.floor(random() * 2 ** 31);
    cases.push({
      name: `bundle #${i}`,
      run: async () => {
        const honest = await pagesBundle(await honestPages(2));
        const { name, bytes } = await mutateBundle(honest, seededRandom(caseSeed));
        cases[i].name = `bundle ${name}`;
        if (process.env.FUZZ_LOG) process.stderr.write(`start: ${cases[i].name}\n`);
        return bundleAndAsk(new MemoryRangeSource(bytes, 'crafted.bundle'));
      },
    });
  }
  return cases;
}

const LIES: Lie[] = [
  'wrong-range',
  'short',
  'endless',
  'gzip-bomb',
  'silent',
  'redirect',
  'long-boundary',
  'changed',
  'whole',
];

export async function runCases(
  cases: Case[],
  expected: () => Promise<string[]>,
  exact = false,
): Promise<FuzzReport> {
  const want = JSON.stringify(await expected());
  const report: FuzzReport = {
    cases: 0,
    answered: 0,
    refused: 0,
    bad: [],
    slowest: { name: '', ms: 0 },
    peakMB: 0,
    ms: 0,
  };
  const started = performance.now();
  for (const c of cases) {
    const t = performance.now();
    try {
      const value = await c.run();
      if (process.env.FUZZ_LOG) process.stderr.write(`answered: ${c.name}\n`);
      report.answered++;
      // An answer is either the honest one or one from pages that still hold together (a change no check can see,
      // as a swapped pair of lengths): it must at least be a list of answers, one per question and mode.
      // Bytes read by ranges are checked against their hashes, so an answer from a lying host is the honest one.
      if (
        exact
          ? JSON.stringify(value) !== want
          : !Array.isArray(value) || value.length !== JSON.parse(want).length
      )
        report.bad.push({ name: c.name, outcome: `answered ${JSON.stringify(value).slice(0, 120)}` });
    } catch (e) {
      report.refused++;
      const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      // A message that names no part, or a crash of the code's own (a property of undefined, an array too long).
      if (!NAMES_A_PART.test(message) || CRASH.test(message))
        report.bad.push({ name: c.name, outcome: message.slice(0, 200) });
    }
    const ms = performance.now() - t;
    if (process.env.FUZZ_LOG) process.stderr.write(`${ms.toFixed(0).padStart(6)} ms  ${c.name}\n`);
    if (ms > report.slowest.ms) report.slowest = { name: c.name, ms };
    const m = process.memoryUsage();
    report.peakMB = Math.max(report.peakMB, (m.heapUsed + m.arrayBuffers) / 2 ** 20);
    report.cases++;
  }
  report.ms = performance.now() - started;
  return report;
}

/** `count` cases of changed pages and bundles (four in five of pages, one in five of a whole bundle's bytes). */
export function fuzzPages(count: number, seed = 43): Promise<FuzzReport> {
  const pages = Math.round(count * 0.8);
  return runCases([...casesOfPages(pages, seed), ...casesOfBundles(count - pages, seed + 1)], async () =>
    openAndAsk(await honestPages(2)),
  );
}

/** `count` cases of the honest bundle read by ranges from a host that lies, after a random number of honest answers. */
export async function fuzzHost(count: number, seed = 43): Promise<FuzzReport> {
  const bytes = await pagesBundle(await honestPages(2));
  const host = await lyingHost(bytes);
  const random = seededRandom(seed);
  const url = `${host.origin}/lib.bundle`;
  try {
    const cases: Case[] = [];
    for (let i = 0; i < count; i++) {
      const lie = LIES[i % LIES.length];
      const honest = Math.floor(random() * 12);
      cases.push({
        name: `host: ${lie} after ${honest} honest answers`,
        run: async () => {
          host.lie(lie, honest);
          const source = await HttpRangeSource.open(url, fetch, 500);
          if (!source) throw new Error(`${url}: no ranges (whole download)`);
          return bundleAndAsk(source);
        },
      });
    }
    return await runCases(
      cases,
      async () => {
        host.lie('none');
        return bundleAndAsk(new MemoryRangeSource(bytes, 'crafted.bundle'));
      },
      true,
    );
  } finally {
    await host.close();
  }
}

/**
 * Every value of the `analyzer` field (added for the stemmer, after this fuzzer was first written) in the pages'
 * directory and in the bundle manifest's copy of it: the known versions answer (as the words were built, or as the
 * version stated, which still holds together), anything else is refused naming pages.bin.
 */
export function fuzzAnalyzer(): Promise<FuzzReport> {
  const values: unknown[] = [...new Set([...extremes(2), ...WRONG_KINDS, 1, 2, 3, 99, undefined])];
  const cases: Case[] = [];
  for (const value of values) {
    const set = (d: Record<string, unknown>): void => {
      if (value === undefined) delete d.analyzer;
      else d.analyzer = value;
    };
    const shown = value === undefined ? '(absent)' : JSON.stringify(value);
    cases.push({
      name: `pages v2 directory.analyzer = ${shown}`,
      run: async () => {
        const p = piecesOf(await honestPages(2));
        set(p.directory as unknown as Record<string, unknown>);
        return openAndAsk(assemble(p));
      },
    });
    cases.push({
      name: `bundle pages.bin meta analyzer = ${shown}`,
      run: async () => {
        const written = await honestPages(2);
        const directory = { ...written.directory } as unknown as Record<string, unknown>;
        set(directory);
        const bytes = await pagesBundle({ ...written, directory: directory as never });
        return bundleAndAsk(new MemoryRangeSource(bytes, 'crafted.bundle'));
      },
    });
  }
  return runCases(cases, async () => openAndAsk(await honestPages(2)));
}
