// Stored themes are read as untrusted input: what computeThemes writes reads back unchanged, and a record a hostile
// bundle could hold is refused, naming the field and the reason, before anything loops over it.
import { describe, expect, it } from 'vitest';
import { readThemes, THEME_LIMITS, type LibraryThemes } from '../../../src/core/themes/index.ts';

const theme = {
  label: 'cat · kitten · purr',
  concepts: ['cat', 'kitten', 'purr'],
  chunks: 4,
  documents: 2,
  share: 0.5,
  keyDocuments: ['d1', 'd2'],
  keyTitles: ['One', 'Two'],
  passages: ['d1#0000#0000'],
};
const good: LibraryThemes = { version: 1, chunks: 8, documents: 3, themes: [theme] };

describe('readThemes', () => {
  it('reads a well-formed record unchanged, through JSON', () => {
    expect(readThemes(JSON.parse(JSON.stringify(good)))).toEqual(good);
  });

  it.each([
    [{ ...good, version: 2 }, /version 2 is not 1/],
    [{ ...good, chunks: -1 }, /themes\.chunks: must be a whole number/],
    [{ ...good, themes: 'x' }, /themes\.themes: must be a list/],
    [{ ...good, themes: [{ ...theme, share: 2 }] }, /themes\[0\]\.share/],
    [{ ...good, themes: [{ ...theme, concepts: [1] }] }, /themes\[0\]\.concepts\[0\]: must be a string/],
    [{ ...good, themes: [{ ...theme, keyTitles: ['One'] }] }, /1 titles for 2 documents/],
    [{ ...good, themes: [{ ...theme, label: 'x'.repeat(THEME_LIMITS.chars + 1) }] }, /label: longer than/],
    [{ ...good, themes: Array(THEME_LIMITS.themes + 1).fill(theme) }, /more than 200/],
    [{ ...good, themes: [{ ...theme, passages: Array(11).fill('p') }] }, /passages: 11 entries/],
    [null, /themes: must be an object/],
  ])('refuses a bad record (%#)', (value, reason) => {
    expect(() => readThemes(value)).toThrow(reason);
  });
});
