// The bundle fuzzer's cases for the two newest fields (issue 42): `titleChunks` in the pages' `open` value (issue 45:
// the passages that share a title count as one document in the question blend) and the optional themes part
// (issue 48: read in one range, checked by its digest, bounded at 4 MB, shape-checked). Each case changes one of
// them, keeps every other digest right, and opens and asks as the app does; the invariant is pagesFuzz.ts's: each
// case answered, or refused with a message naming the part (pages.bin, or the themes part by its name), in bounded
// time and memory. Run in a worker under a time limit by test/unit/paged/fuzzPages.test.ts.
import { gzipSync } from 'node:zlib';
import { bundleBytes, Sha256, toHex, writeBundle } from '../../src/core/bundle/index.ts';
import { openPagedBundle } from '../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { pagesParts } from '../../src/core/paged/write.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { readThemesPart, THEMES_PART, themesPart } from '../../src/core/themes/index.ts';
import type { LibraryThemes } from '../../src/core/themes/themes.ts';
import { assemble, honestPages, piecesOf } from './hostilePages.ts';
import {
  ask,
  extremes,
  manifestOf,
  openAndAsk,
  runCases,
  withManifest,
  WRONG_KINDS,
  type Case,
  type FuzzReport,
} from './pagesFuzz.ts';

/** Honest themes of the fixture's kind (what computeThemes writes: a version, counts, themes within the bounds). */
const HONEST_THEMES: LibraryThemes = {
  version: 1,
  chunks: 20,
  documents: 20,
  themes: [
    {
      label: 'film · director',
      concepts: ['film', 'director', 'released'],
      chunks: 8,
      documents: 8,
      share: 0.4,
      keyDocuments: ['doc-1', 'doc-2'],
      keyTitles: ['title of doc-1', 'title of doc-2'],
      passages: ['The film was released in 1999.'],
    },
    {
      label: 'born · city',
      concepts: ['born', 'city'],
      chunks: 12,
      documents: 12,
      share: 0.6,
      keyDocuments: ['doc-3'],
      keyTitles: ['title of doc-3'],
      passages: ['He was born in the city.'],
    },
  ],
};

const THEME_FIELDS = [
  'label',
  'concepts',
  'chunks',
  'documents',
  'share',
  'keyDocuments',
  'keyTitles',
  'passages',
] as const;

/** The themes as JSON with one change: `set` gets a copy to change. */
function changedThemes(set: (t: Record<string, unknown>) => void): Uint8Array {
  const copy = structuredClone(HONEST_THEMES) as unknown as Record<string, unknown>;
  set(copy);
  return new TextEncoder().encode(JSON.stringify(copy));
}

/** Every change of the themes' content, the part's bytes and sizes then honest (the writer digests them). */
function themeContents(): Array<{ name: string; raw: Uint8Array }> {
  const out: Array<{ name: string; raw: Uint8Array }> = [];
  // The extremes that reach a different check (a count, a share, a length), and every wrong kind.
  const values = [...new Set([0, -1, 0.5, 2, NaN, 2 ** 53, 1e-300, ...WRONG_KINDS, undefined])];
  const shown = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  for (const field of ['version', 'chunks', 'documents', 'themes'])
    for (const value of values)
      out.push({
        name: `themes.${field} = ${shown(value)}`,
        raw: changedThemes((t) => (value === undefined ? delete t[field] : (t[field] = value))),
      });
  for (const field of THEME_FIELDS)
    for (const value of values)
      out.push({
        name: `themes.themes[1].${field} = ${shown(value)}`,
        raw: changedThemes((t) => {
          const theme = (t.themes as Array<Record<string, unknown>>)[1];
          if (value === undefined) delete theme[field];
          else theme[field] = value;
        }),
      });
  // Past each bound of themesShape.ts, and a list far past it.
  const over: Array<[string, (t: Record<string, unknown>) => void]> = [
    ['201 themes', (t) => (t.themes = Array.from({ length: 201 }, () => HONEST_THEMES.themes[0]))],
    ['a million themes', (t) => (t.themes = new Array(1_000_000).fill(0))],
    [
      '51 concepts',
      (t) => ((t.themes as Theme[])[0].concepts = Array.from({ length: 51 }, (_, i) => `c${i}`)),
    ],
    ['11 passages', (t) => ((t.themes as Theme[])[0].passages = new Array(11).fill('p'))],
    ['a label of 513 characters', (t) => ((t.themes as Theme[])[0].label = 'x'.repeat(513))],
    ['one title fewer than documents', (t) => ((t.themes as Theme[])[0].keyTitles = ['title of doc-1'])],
    ['share 1.5', (t) => ((t.themes as Theme[])[0].share = 1.5)],
    ['a theme that is a list', (t) => ((t.themes as unknown[])[0] = [])],
  ];
  for (const [name, set] of over) out.push({ name: `themes with ${name}`, raw: changedThemes(set) });
  // Not the JSON it should be.
  const honest = new TextEncoder().encode(JSON.stringify(HONEST_THEMES));
  out.push({ name: 'themes cut short', raw: honest.slice(0, honest.length >> 1) });
  out.push({ name: 'themes empty', raw: new Uint8Array(0) });
  out.push({ name: 'themes null', raw: new TextEncoder().encode('null') });
  out.push({ name: 'themes of bytes 0xff', raw: new Uint8Array(64).fill(0xff) });
  out.push({ name: 'themes nested 100,000 deep', raw: new TextEncoder().encode('['.repeat(100_000)) });
  // Past the 4 MB bound once inflated (and a little under it: answered).
  const spaces = (n: number) => new TextEncoder().encode(' '.repeat(n) + JSON.stringify(HONEST_THEMES));
  out.push({ name: 'themes of 5 MB (mostly spaces)', raw: spaces(5 * 1024 * 1024) });
  out.push({ name: 'themes of 3 MB (mostly spaces)', raw: spaces(3 * 1024 * 1024) });
  return out;
}
type Theme = LibraryThemes['themes'][number];

/** The honest pages with the honest themes part, as the writer lays them out (written once per process). */
let honestBundleMade: Promise<Uint8Array> | undefined;
function honestThemesBundle(): Promise<Uint8Array> {
  honestBundleMade ??= (async () => {
    const part = themesPart(HONEST_THEMES);
    const parts = [...pagesParts(await honestPages(2)), part];
    return bundleBytes(writeBundle(parts, { appVersion: 'fuzz', embedder: null }));
  })();
  return honestBundleMade;
}

/**
 * The honest bundle with other stored bytes for its themes part: put after the parts, the manifest's entry pointing
 * at them with their honest digest and `rawLength` (the writer's own, unless a lie is asked for).
 */
async function withThemesBytes(stored: Uint8Array, rawLength: number): Promise<Uint8Array> {
  const honest = await honestThemesBundle();
  const manifest = manifestOf(honest);
  const tail = honest.length - 12;
  const grown = new Uint8Array(tail + stored.length + 12);
  grown.set(honest.subarray(0, tail));
  grown.set(stored, tail);
  grown.set(honest.subarray(tail), tail + stored.length);
  Object.assign(entryOf(manifest), {
    offset: tail,
    length: stored.length,
    rawLength,
    sha256: toHex(new Sha256().update(stored).digest()),
  });
  return withManifest(grown, manifest);
}

/** A themes part of these raw bytes, gzip'd and sized honestly. */
const bundleWithThemes = (raw: Uint8Array): Promise<Uint8Array> =>
  withThemesBytes(new Uint8Array(gzipSync(raw)), raw.length);

/**
 * Opens the bundle by ranges, asks the pages, and reads its themes as the app's loader does (bundleThemes.ts). The
 * pages must answer as the honest ones whatever the themes part holds; the themes are read as a valid record, or
 * refused naming the part. Anything else comes back as a value that is not the answers' list (counted as bad).
 */
async function openAskAndReadThemes(bytes: Uint8Array, want: string, honest = false): Promise<unknown> {
  const opened = await openPagedBundle(new MemoryRangeSource(bytes, 'crafted.bundle'), createTermAnalyzer());
  if (!opened) throw new Error('crafted.bundle: no pages');
  const answers = await ask(opened.library);
  if (JSON.stringify(answers) !== want) return { pagesChanged: answers };
  try {
    const read = await readThemesPart(opened.source, opened.manifest);
    if (read && (read.themes.version !== 1 || !Array.isArray(read.themes.themes)))
      return { themesMisread: read.themes };
    if (honest && JSON.stringify(read?.themes) !== JSON.stringify(HONEST_THEMES))
      return { honestThemesMisread: read?.themes ?? null };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!message.includes(THEMES_PART)) return { refusalNamesNoPart: message };
    throw e;
  }
  return answers;
}

/** The honest bundle's themes entry changed in its manifest (digest of the manifest recomputed). */
function themeEntryChanges(honest: Uint8Array): Array<{ name: string; bytes: Uint8Array }> {
  const out: Array<{ name: string; bytes: Uint8Array }> = [];
  for (const field of ['offset', 'length', 'rawLength', 'sha256', 'encoding', 'count', 'kind'])
    for (const value of [
      ...extremes(Number(entryOf(manifestOf(honest))[field]) || 0),
      ...WRONG_KINDS,
      'zstd',
    ]) {
      const manifest = manifestOf(honest);
      entryOf(manifest)[field] = value;
      out.push({
        name: `manifest ${THEMES_PART}.${field} = ${JSON.stringify(value)}`,
        bytes: withManifest(honest, manifest),
      });
    }
  // Its bytes damaged, the manifest as it was: the digest must catch it.
  const entry = entryOf(manifestOf(honest));
  const damaged = honest.slice();
  damaged[Number(entry.offset) + (Number(entry.length) >> 1)] ^= 0xff;
  out.push({ name: `${THEMES_PART}: a byte flipped`, bytes: damaged });
  return out;
}

function entryOf(manifest: { parts: Array<Record<string, unknown>> }): Record<string, unknown> {
  const entry = manifest.parts.find((p) => p.name === THEMES_PART);
  if (!entry) throw new Error(`the honest bundle has no ${THEMES_PART}`);
  return entry;
}

/** A gzip bomb: the stored bytes (small, digested right) inflate to 100 MB, the manifest says 1,000 bytes. */
const bombBundle = (): Promise<Uint8Array> =>
  withThemesBytes(new Uint8Array(gzipSync(new Uint8Array(100 * 1024 * 1024))), 1000);

/**
 * Every change of `titleChunks` and of the themes part: each value of a titleChunks element (the first, the last),
 * the list cut, grown, of another kind or missing; each field of the themes record and of a theme set to an extreme
 * or another kind, each bound passed, bytes that are not JSON; each field of the part's manifest entry; a flipped
 * byte; a gzip bomb.
 *
 * `stride` > 1 runs every stride-th case of the value grids (a field set to one value: "… = value") and every other
 * case: the default tier's run (fuzzPages.test.ts); the scale tier's runs them all (fuzzPages.scale.test.ts).
 */
export async function fuzzNewest(stride = 1): Promise<FuzzReport> {
  const cases: Case[] = [];
  const honestOpen = piecesOf(await honestPages(2)).open as unknown as Record<string, unknown>;
  const own = honestOpen.titleChunks as Uint32Array | undefined;
  if (!own) throw new Error('the honest pages have no titleChunks: nothing to fuzz');
  for (const at of [0, own.length - 1])
    for (const value of [...extremes(own[at]), ...WRONG_KINDS])
      cases.push({
        name: `pages v2 open.titleChunks[${at}] = ${JSON.stringify(value)}`,
        run: async () => {
          const p = piecesOf(await honestPages(2));
          (p.open.titleChunks as unknown as unknown[])[at] = value;
          return openAndAsk(assemble(p));
        },
      });
  const whole: Array<[string, (open: Record<string, unknown>) => void]> = [
    ['cut by one', (o) => (o.titleChunks = (o.titleChunks as Uint32Array).slice(0, own.length - 1))],
    ['grown by one', (o) => (o.titleChunks = Uint32Array.from([...own, 1]))],
    ['missing (a part written before it)', (o) => delete o.titleChunks],
    ['every value the chunk count', (o) => (o.titleChunks = new Uint32Array(own.length).fill(own.length))],
    ['every value 0', (o) => (o.titleChunks = new Uint32Array(own.length))],
    ...WRONG_KINDS.map((v): [string, (o: Record<string, unknown>) => void] => [
      `= ${JSON.stringify(v)}`,
      (o) => (o.titleChunks = v),
    ]),
  ];
  for (const [name, change] of whole)
    cases.push({
      name: `pages v2 open.titleChunks ${name}`,
      run: async () => {
        const p = piecesOf(await honestPages(2));
        change(p.open as unknown as Record<string, unknown>);
        return openAndAsk(assemble(p));
      },
    });

  const want = JSON.stringify(await openAndAsk(await honestPages(2)));
  for (const { name, raw } of themeContents())
    cases.push({ name, run: async () => openAskAndReadThemes(await bundleWithThemes(raw), want) });
  const honestBundle = await honestThemesBundle();
  for (const { name, bytes } of themeEntryChanges(honestBundle))
    cases.push({ name, run: () => openAskAndReadThemes(bytes, want) });
  cases.push({
    name: `${THEMES_PART}: a gzip bomb (100 MB, said to be 1,000 bytes)`,
    run: async () => openAskAndReadThemes(await bombBundle(), want),
  });
  // The honest bundle itself: its themes are read (the cases above change only what they name).
  cases.push({ name: `${THEMES_PART}: honest`, run: () => openAskAndReadThemes(honestBundle, want, true) });
  let grid = 0;
  const every = Math.max(1, Math.floor(stride));
  const run = cases.filter((c) => !c.name.includes(' = ') || grid++ % every === 0);
  return runCases(run, async () => openAndAsk(await honestPages(2)));
}
