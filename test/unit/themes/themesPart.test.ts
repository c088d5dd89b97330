// themes.json as a bundle part read by ranges: a bundle with pages and themes opens, its themes read back equal,
// an older reader's path (the pages alone) is untouched, and a part a hostile bundle could hold is refused by name
// before it is decoded (a digest that does not match, a declared size past the limit, a shape that is wrong).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleBytes, writeBundle, type BundlePart } from '../../../src/core/bundle/index.ts';
import {
  MemoryRangeSource,
  openPagedBundle,
  pagesParts,
  writePagedIndex,
} from '../../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { readThemesPart, THEMES_PART, themesPart } from '../../../src/core/themes/index.ts';
import { themesOfLibrary } from '../../../src/services/themes/themesOf.ts';
import { bothLibraries } from '../../support/pagedLibraries.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/vuedocs/pages');

// The fixture's library, its paged index and its themes, built once for the file: each test bundles them with the
// part it checks (building the library and its themes was most of each test's time, the same work every time).
let built: {
  written: Awaited<ReturnType<typeof writePagedIndex>>;
  themes: ReturnType<typeof themesOfLibrary>;
};
beforeAll(async () => {
  const { engine, library } = await bothLibraries(FIXTURE);
  const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({
    title: library.documents.get(docId)!.title,
  }));
  built = { written, themes: themesOfLibrary(library) };
}, 120_000);

async function bundle(extra: BundlePart[]) {
  const bytes = await bundleBytes(
    writeBundle([...pagesParts(built.written), ...extra], { appVersion: 'test', embedder: null }),
  );
  return { bytes, themes: built.themes };
}

async function open(bytes: Uint8Array) {
  const opened = await openPagedBundle(new MemoryRangeSource(bytes, 'test.bundle'), createTermAnalyzer());
  return opened!;
}

describe('themes.json', () => {
  it('reads back the themes written beside the pages, by one range', async () => {
    const { themes } = built;
    const { bytes } = await bundle([themesPart(themes)]);
    const opened = await open(bytes);
    const read = await readThemesPart(opened.source, opened.manifest);
    expect(read?.themes).toEqual(JSON.parse(JSON.stringify(themes)));
    const entry = opened.manifest.parts.find((p) => p.name === THEMES_PART)!;
    expect(read?.bytes).toBe(entry.length);
    // A bundle without the part has no themes, and its pages open as before.
    const plain = await open((await bundle([])).bytes);
    expect(await readThemesPart(plain.source, plain.manifest)).toBeNull();
  }, 120_000);

  it('refuses a part whose bytes do not match the digest, one declared too large, and a bad shape', async () => {
    const { themes } = built;
    const { bytes } = await bundle([themesPart(themes)]);
    const opened = await open(bytes);
    const entry = opened.manifest.parts.find((p) => p.name === THEMES_PART)!;
    const flipped = bytes.slice();
    flipped[entry.offset! + 5] ^= 0xff;
    await expect(readThemesPart(new MemoryRangeSource(flipped, 'x'), opened.manifest)).rejects.toThrow(
      /SHA-256 mismatch in part themes\.json/,
    );
    const large = {
      ...opened.manifest,
      parts: opened.manifest.parts.map((p) => (p === entry ? { ...p, rawLength: 64 * 2 ** 20 } : p)),
    };
    await expect(readThemesPart(opened.source, large)).rejects.toThrow(/themes\.json/);
    const wrong = { ...themes, themes: [{ ...themes.themes[0], share: 'half' }] } as unknown as typeof themes;
    const bad = await bundle([themesPart(wrong)]);
    const badOpened = await open(bad.bytes);
    await expect(readThemesPart(badOpened.source, badOpened.manifest)).rejects.toThrow(
      /themes\.json\.themes\[0\]\.share/,
    );
  }, 120_000);
});
