// Version 10's records (format.ts, FORMAT.md "Version 10", `recordCoding`): each group of chunk records is JSON of
// positional records (arrays, no keys; a document's id and title said once a group; sentence offsets as gaps),
// deflated raw with a dictionary trained from the library's own records and stored once at the end of the `records`
// section. At 100 MiB of text a group of 4 records was ~2.4 KB of gzip'd JSON with its keys, its title and a gzip
// header and trailer each time (docs/results/question-bytes.md, round nineteen). Inflated with fflate, synchronously,
// as decodeJson inflates the gzip'd groups.
import { deflateSync, inflateSync } from 'fflate';
import { ByteReader, ByteWriter } from './bytes.ts';
import { checkRecordGroup } from './groupShapes.ts';
import type { PagedChunkRecord } from './format.ts';

/** Deflate's window: a dictionary longer than this is never reached (checked before anything is allocated for it). */
const MAX_DICTIONARY_BYTES = 32 * 1024;

/**
 * The stored dictionary's bytes at most (its varint length and its deflated bytes; a 32 KiB dictionary of frequent
 * pieces of text deflates to ~10–16 KB): the directory's `recordCoding.dictionary` above it is refused.
 */
export const MAX_STORED_DICTIONARY_BYTES = 64 * 1024;

/**
 * The groups whose JSON the dictionary is trained from: the first ones a writer sees (the stream build sees records one
 * at a time and must write each group with the dictionary, so it holds these back until the dictionary is made; a
 * seeded sample of the whole library would need the whole library first). 512 groups of 4 are ~2.7 MB of JSON at
 * 100 MiB (documents in the order of their ids' hashes, so the first ones are a sample of every source).
 */
export const TRAIN_GROUPS = 512;

/** Below this many bytes of training JSON no dictionary is made (its own bytes would cost more than it saves). */
const MIN_TRAIN_BYTES = 16 * 1024;

/** The dictionary's size for this many bytes of training JSON: a sixteenth of it, from 1 KiB to 32 KiB. */
export function dictionarySize(trainBytes: number): number {
  if (trainBytes < MIN_TRAIN_BYTES) return 0;
  return Math.min(MAX_DICTIONARY_BYTES, Math.max(1024, Math.floor(trainBytes / 16)));
}

/** The inflated bytes a deflated piece may declare: 64× its stored bytes and 1 MiB (as gzipSize bounds a group). */
function inflatedBound(stored: number): number {
  return stored * 64 + 1024 * 1024;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One record as version 10 codes it (see codeRecords). */
type Positional = [
  string | [string],
  string | 0,
  string | 0,
  string,
  number,
  number,
  number[],
  string[] | 0 | 1,
  number[] | 0 | 1,
  number,
  number,
];

/**
 * The JSON of a group of records, positional: per record `[id, docId, title, text, tokens, start, sentences, path,
 * pageStarts, pageStart, pageEnd]` where
 * - `id` is the part after the document's id when the id starts with it (a string), else `[id]`;
 * - `docId` and `title` are 0 when the record before it in the group has the same;
 * - `sentences` are gaps: the first start less the chunk's start, then each offset less the one before it;
 * - `path` and `pageStarts` are 0 when absent, 1 when the record before has the same, else the list;
 * - `pageStart` and `pageEnd` are −1 when absent.
 */
export function codeRecords(records: readonly PagedChunkRecord[]): Uint8Array {
  const out: Positional[] = [];
  let prev: PagedChunkRecord | undefined;
  for (const r of records) {
    const gaps: number[] = [];
    let at = r.start;
    for (const s of r.sentences) {
      gaps.push(s - at);
      at = s;
    }
    out.push([
      r.id.startsWith(r.docId) ? r.id.slice(r.docId.length) : [r.id],
      prev && prev.docId === r.docId ? 0 : r.docId,
      prev && prev.title === r.title ? 0 : r.title,
      r.text,
      r.tokens,
      r.start,
      gaps,
      r.path === undefined ? 0 : prev && sameList(prev.path, r.path) ? 1 : r.path,
      r.pageStarts === undefined ? 0 : prev && sameList(prev.pageStarts, r.pageStarts) ? 1 : r.pageStarts,
      r.pageStart ?? -1,
      r.pageEnd ?? -1,
    ]);
    prev = r;
  }
  return encoder.encode(JSON.stringify(out));
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[]): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const isOffset = (x: unknown): x is number => Number.isSafeInteger(x) && Math.abs(x as number) <= 2 ** 40;

/**
 * The records of a decoded positional group of `expected` records, each field type-checked before it is used (a
 * refusal names the record and the field), then checked as a JSON group is (groupShapes.ts checkRecordGroup).
 */
export function decodeRecords(value: unknown, expected: number): PagedChunkRecord[] {
  if (!Array.isArray(value) || value.length !== expected)
    throw new Error(
      `holds ${Array.isArray(value) ? value.length : 'no list of'} records, expected ${expected}`,
    );
  const records: PagedChunkRecord[] = [];
  let prev: PagedChunkRecord | undefined;
  for (let i = 0; i < value.length; i++) {
    const fail = (why: string): never => {
      throw new Error(`its record ${i} ${why}`);
    };
    const x: unknown = value[i];
    if (!Array.isArray(x) || x.length !== 11) return fail('is not a list of 11 fields');
    const [id, docId, title, text, tokens, start, gaps, path, pageStarts, pageStart, pageEnd] =
      x as unknown[];
    const doc = docId === 0 ? prev?.docId : docId;
    if (typeof doc !== 'string') return fail('has no "docId" string');
    const name = title === 0 ? prev?.title : title;
    if (typeof name !== 'string') return fail('has no "title" string');
    let whole: string;
    if (typeof id === 'string') whole = doc + id;
    else if (Array.isArray(id) && id.length === 1 && typeof id[0] === 'string') whole = id[0];
    else return fail('has no "id" string');
    if (typeof text !== 'string') return fail('has no "text" string');
    if (!isCount(tokens)) return fail('has no "tokens" count');
    if (!isCount(start)) return fail('has no "start" count');
    if (!Array.isArray(gaps) || gaps.length % 2 !== 0)
      return fail('has "sentences" that are not a list of [start, end] gaps');
    const sentences = new Array<number>(gaps.length);
    let at = start;
    for (let s = 0; s < gaps.length; s++) {
      const gap: unknown = gaps[s];
      if (!isOffset(gap)) return fail(`has sentence gap ${s} that is not a whole number`);
      at += gap;
      sentences[s] = at;
    }
    const list = <T>(field: unknown, before: T[] | undefined, key: string, is: (v: unknown) => boolean) => {
      if (field === 0) return undefined;
      if (field === 1) return before ? [...before] : fail(`has "${key}" the same as no record before it`);
      if (!Array.isArray(field) || !field.every(is)) return fail(`has a "${key}" that is not a list`);
      return field as T[];
    };
    const ownPath = list<string>(path, prev?.path, 'path', (v) => typeof v === 'string');
    const ownPages = list<number>(pageStarts, prev?.pageStarts, 'pageStarts', isCount);
    if (!(pageStart === -1 || isCount(pageStart))) return fail('has a "pageStart" that is not a count');
    if (!(pageEnd === -1 || isCount(pageEnd))) return fail('has a "pageEnd" that is not a count');
    // The keys in the order write.ts pagedRecord gives them (the records a library shows are those it was given).
    const record: PagedChunkRecord = {
      id: whole,
      docId: doc,
      title: name,
      ...(ownPages ? { pageStarts: ownPages } : {}),
      text,
      tokens,
      start,
      ...(ownPath ? { path: ownPath } : {}),
      ...(pageStart !== -1 ? { pageStart } : {}),
      ...(pageEnd !== -1 ? { pageEnd } : {}),
      sentences,
    };
    records.push(record);
    prev = record;
  }
  return checkRecordGroup(records, expected);
}

/** `data` deflated raw (with `dictionary` when there is one), after its length as a varint. */
export function deflateWithLength(data: Uint8Array, dictionary?: Uint8Array): Uint8Array {
  const head = new ByteWriter();
  head.varint(data.length);
  const body = deflateSync(data, {
    level: 9,
    mem: 8,
    ...(dictionary && dictionary.length > 0 ? { dictionary } : {}),
  });
  const out = new Uint8Array(head.length + body.length);
  out.set(head.take(), 0);
  out.set(body, out.length - body.length);
  return out;
}

/**
 * What deflateWithLength wrote, inflated into a buffer of the length it declares, refused above `most` bytes and
 * above 64× its stored bytes plus 1 MiB before anything is allocated; fflate writes nothing past that buffer.
 */
export function inflateWithLength(
  bytes: Uint8Array,
  dictionary: Uint8Array | undefined,
  most = Infinity,
): Uint8Array {
  const reader = new ByteReader(bytes);
  const size = reader.varint();
  if (size > most || size > inflatedBound(bytes.length)) throw new Error(`declares ${size} bytes inflated`);
  const out = inflateSync(bytes.subarray(reader.at), {
    out: new Uint8Array(size),
    ...(dictionary && dictionary.length > 0 ? { dictionary } : {}),
  });
  if (out.length !== size) throw new Error(`inflates to ${out.length} bytes, not the ${size} it declares`);
  return out;
}

/** A stored record group of `expected` records, decoded and checked. */
export function decodeRecordGroup(
  bytes: Uint8Array,
  dictionary: Uint8Array | undefined,
  expected: number,
): PagedChunkRecord[] {
  return decodeRecords(JSON.parse(decoder.decode(inflateWithLength(bytes, dictionary))) as unknown, expected);
}

/** The stored dictionary (the `records` section's last `recordCoding.dictionary` bytes), inflated and checked. */
export function decodeDictionary(bytes: Uint8Array): Uint8Array {
  return inflateWithLength(bytes, undefined, MAX_DICTIONARY_BYTES);
}

/** Positions whose d-mer crosses the end of their sample have no hash. */
const NO_HASH = 0xffffffff;
const HASH_BITS = 20;

/**
 * A dictionary of `size` bytes for deflating pieces like `samples`, deterministically (the same samples give the
 * same bytes). The cover method of zstd's trainer (Liao, Petri, Moffat, Wirth, "Effective construction of relative
 * Lempel-Ziv dictionaries", 2016), cut down: the frequency of every 8-byte piece is the number of samples that hold
 * it; the samples, laid end to end, are cut into as many epochs as the dictionary has segments of `segment` bytes;
 * from each epoch the segment whose pieces are the most frequent is taken, and its pieces' frequencies zeroed (a
 * piece taken once is not worth taking again). The segments are laid out by score, the best last: deflate reaches
 * back 32 KiB, and the end of the dictionary is what stays in reach longest. Written here, not taken from a package:
 * fflate (the app's deflate) trains no dictionary, and the trainers we know of are zstd's native library and its
 * bindings, a WASM build for what is ~60 lines of the format's own code.
 */
export function trainDictionary(samples: readonly Uint8Array[], size: number, segment = 32): Uint8Array {
  const d = 8;
  let total = 0;
  for (const s of samples) total += s.length;
  const count = Math.floor(size / segment);
  if (count === 0 || total < segment * 2) return new Uint8Array(0);
  const data = new Uint8Array(total);
  const hashes = new Uint32Array(total).fill(NO_HASH);
  const freq = new Uint32Array(1 << HASH_BITS);
  const seen = new Int32Array(1 << HASH_BITS).fill(-1);
  let at = 0;
  for (let n = 0; n < samples.length; n++) {
    const s = samples[n];
    data.set(s, at);
    for (let i = 0; i + d <= s.length; i++) {
      let h = 0x811c9dc5;
      for (let j = 0; j < d; j++) h = Math.imul(h ^ s[i + j], 0x01000193);
      h = (h >>> 0) >>> (32 - HASH_BITS);
      hashes[at + i] = h;
      if (seen[h] !== n) {
        seen[h] = n;
        freq[h]++;
      }
    }
    at += s.length;
  }
  const epoch = Math.floor(total / count);
  const picked: Array<{ score: number; epoch: number; from: number }> = [];
  const scoreOf = (i: number): number => (hashes[i] === NO_HASH ? 0 : freq[hashes[i]]);
  for (let e = 0; e < count; e++) {
    const lo = e * epoch;
    const hi = Math.min(total, lo + epoch);
    if (hi - lo < segment) continue;
    // The score of the segment at i: its pieces' frequencies (those starting in [i, i + segment − d]).
    let score = 0;
    for (let i = lo; i <= lo + segment - d; i++) score += scoreOf(i);
    let best = score;
    let from = lo;
    for (let i = lo + 1; i + segment <= hi; i++) {
      score += scoreOf(i + segment - d) - scoreOf(i - 1);
      if (score > best) {
        best = score;
        from = i;
      }
    }
    if (best === 0) continue;
    for (let i = from; i <= from + segment - d; i++) if (hashes[i] !== NO_HASH) freq[hashes[i]] = 0;
    picked.push({ score: best, epoch: e, from });
  }
  picked.sort((a, b) => a.score - b.score || a.epoch - b.epoch);
  const out = new Uint8Array(picked.length * segment);
  picked.forEach((p, i) => out.set(data.subarray(p.from, p.from + segment), i * segment));
  return out;
}
