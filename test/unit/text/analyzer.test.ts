// What the analyser offers as concept candidates (version 2): not file paths, include directives or listing labels,
// which a programming book repeats on every page but a reader never takes for its subjects. They stay words.
import { describe, expect, it } from 'vitest';
import { questionTerms } from '../../../src/core/graph/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const PAGE =
  'Listing 8-1 in src/main.rs shows it: {{#rustdoc_include ../listings/ch08-common-collections/listing-08-01/src/main.rs:here}}. ' +
  'Run cargo and compare output.txt with Cargo.toml (see https://doc.rust-lang.org/std/vec/). A vector grows.';

describe('concept candidates', () => {
  it('leave out file paths and names, include directives, URLs and numbered listing labels', () => {
    const c = createTermAnalyzer().candidates!(PAGE);
    const all = [...c.words, ...c.units, ...c.pairs];
    for (const never of [
      'listing',
      'main.rs',
      'main',
      'src',
      'rs',
      'output.txt',
      'txt',
      'toml',
      'listings',
      'https',
      'rustdoc_include',
    ])
      expect(all).not.toContain(never);
    expect(all).toEqual(expect.arrayContaining(['cargo', 'vector', 'grows']));
  });

  it('keep them as words for BM25, and keep version 1 candidates as they were', () => {
    const terms = createTermAnalyzer().terms(PAGE);
    expect(terms).toEqual(expect.arrayContaining(['listing', 'main.rs', 'output.txt', 'cargo.toml']));
    const v1 = createTermAnalyzer(1).candidates!(PAGE);
    expect(v1.words).toContain('listing');
  });
});

describe('a question’s concepts', () => {
  it('include the parts of its code identifiers, as a passage naming the identifier gives them', () => {
    const known = new Set(['renderer', 'ipcrenderer']);
    const terms = questionTerms(createTermAnalyzer(), 'How do I get a reply from ipcRenderer.invoke?', known);
    expect(terms).toEqual(expect.arrayContaining(['renderer', 'ipcrenderer']));
  });
});
