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

// ICU's dictionary cuts simplified technical words it does not know into characters (知识|图|谱, 构|建, 语|义). A lone
// character is in a third of a paper's paragraphs: as a concept it linked every passage to every other.
describe('Chinese segmenter fragments among concept candidates', () => {
  const TEXT = '知识图谱的构建需要语义向量，检索在文档里进行。';

  it('are joined back into the word they were cut from, and a fragment alone is no candidate', () => {
    const { words } = createTermAnalyzer().candidates!(TEXT);
    expect(words).toEqual(expect.arrayContaining(['知识', '图谱', '构建', '语义', '向量', '检索', '文档']));
    for (const fragment of ['图', '谱', '构', '建', '语', '义', '文', '档'])
      expect(words).not.toContain(fragment);
    // A function word (在, 里, 的) ends a run: it is never glued to the fragments beside it.
    expect(words.some((w) => w.includes('在') || w.includes('里') || w.includes('的'))).toBe(false);
  });

  it('stay characters for BM25 (question and passage are cut alike), and version 1 keeps them as they were', () => {
    expect(createTermAnalyzer().terms(TEXT)).toEqual(expect.arrayContaining(['图', '谱', '文', '档']));
    expect(createTermAnalyzer(1).candidates!(TEXT).words).toEqual(expect.arrayContaining(['图', '谱']));
  });

  it('are looked up joined in a question, so the question seeds the word the passages hold', () => {
    const known = new Set(['图谱', '语义']);
    const terms = questionTerms(createTermAnalyzer(), '知识图谱的语义是什么?', known);
    expect(terms).toEqual(expect.arrayContaining(['图谱', '语义']));
  });
});

describe('a question’s concepts', () => {
  it('include the parts of its code identifiers, as a passage naming the identifier gives them', () => {
    const known = new Set(['renderer', 'ipcrenderer']);
    const terms = questionTerms(createTermAnalyzer(), 'How do I get a reply from ipcRenderer.invoke?', known);
    expect(terms).toEqual(expect.arrayContaining(['renderer', 'ipcrenderer']));
  });
});
