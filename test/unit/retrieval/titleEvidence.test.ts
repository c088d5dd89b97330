// A question that names a passage's whole title finds that passage among the many that mention the name
// (pprSearch.ts titleEvidence; issue 45): "Silene" for "Are Ferocactus and Silene both types of plant?", not the
// passages about the genus's species that say "Silene" more often.
import { describe, expect, it } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex } from '../../../src/core/paged/write.ts';
import { DEFAULT_MODE, RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { nameWords, titleEvidence, type HeadingTerms } from '../../../src/core/retrieval/pprSearch.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

/** Heading postings of four titles, by hand: 0 "Silene", 1 "Silene menziesii", 2 "Middle name", 3 none. */
function headings(): HeadingTerms {
  const postings: Record<string, [number[], number[]]> = {
    silene: [
      [0, 1],
      [1, 1],
    ],
    menziesii: [[1], [1]],
    middle: [[2], [1]],
    name: [[2], [1]],
    '~name': [[2], [1]],
  };
  const lengths = [1, 2, 2, 0];
  const idf: Record<string, number> = { silene: 4, menziesii: 6, middle: 2, name: 1, plant: 3, '~name': 1 };
  return {
    postingsOf: (t) =>
      postings[t] && { chunks: Uint32Array.from(postings[t][0]), freqs: Uint16Array.from(postings[t][1]) },
    lengthOf: (k) => lengths[k],
    textIdf: (t) => idf[t] ?? 0,
  };
}

describe('title evidence', () => {
  it('scores the share of a heading the question names, by the IDF of the named words over the rarest', () => {
    const got = titleEvidence(headings(), ['silene', 'plant', 'name', '~name'], 2);
    // Rarest question word: silene (4). "Silene": (1/1)² × 4/4; "Silene menziesii": (1/2)² × 4/4;
    // "Middle name": (1/2)² × 1/4 — the stem "~name" is not a word of the title and is not counted.
    expect(got.get(0)).toBeCloseTo(1, 12);
    expect(got.get(1)).toBeCloseTo(0.25, 12);
    expect(got.get(2)).toBeCloseTo(0.0625, 12);
    expect(got.has(3)).toBe(false);
    // A title named in full by common words only counts as much as their rarity: "Middle name" named whole.
    expect(titleEvidence(headings(), ['middle', 'name', 'silene'], 2).get(2)).toBeCloseTo(3 / 4, 12);
    expect(titleEvidence(headings(), ['unknown'], 2).size).toBe(0);
  });

  it('reads names where the question writes them: capitalised past its first word, or with a digit', () => {
    const analyzer = createTermAnalyzer();
    expect(nameWords(analyzer, 'Are Ferocactus and Silene both types of plant?')).toEqual([
      'ferocactus',
      'silene',
    ]);
    expect(
      nameWords(analyzer, 'In which year was the King who made the 1925 Birthday Honours born?'),
    ).toEqual(expect.arrayContaining(['king', '1925', 'birthday', 'honours']));
    // A page's subject asked in common words ("threads", the page "Threads") is not a name.
    expect(nameWords(analyzer, 'How can several threads own the same value at once?')).toEqual([]);
    expect(nameWords(analyzer, 'Threads own values?')).toEqual([]);
  });

  const PASSAGES: Array<[string, string]> = [
    [
      'Ferocactus',
      'Ferocactus is a genus of large barrel-shaped cacti, mostly with large spines and small flowers.',
    ],
    ['Silene', 'Silene is a genus in the family Caryophyllaceae, the catchflies and campions.'],
    [
      'Silene menziesii',
      'Silene menziesii is a Silene plant, a catchfly; this Silene plant grows in the west.',
    ],
    ['Silene latifolia', 'Silene latifolia is a Silene plant of Europe; the Silene plant flowers at night.'],
    ['Silene tomentosa', 'Silene tomentosa is a rare Silene plant; this Silene plant grows on rock.'],
    ['Silene suksdorfii', 'Silene suksdorfii is a Silene plant of the Cascades; the Silene plant is small.'],
    // Passages about other things, as an encyclopedia holds beside them.
    ...[
      'Tweed',
      'Norham',
      'Berwick',
      'Kelso',
      'Melrose',
      'Coldstream',
      'Jedburgh',
      'Peebles',
      'Selkirk',
      'Hawick',
      'Galashiels',
      'Duns',
    ].map((town, i): [string, string] => [
      town,
      `${town} is a town on the River Tweed with ${i + 2} bridges, a market and a mill of the Borders.`,
    ]),
  ];

  function engine(titleWeight?: number) {
    const chunks = PASSAGES.map(([title, text], i) => ({
      id: `p${i}#0#0`,
      docId: title,
      text,
      tokens: 30,
      start: 0,
      path: [title],
    }));
    const sentences = PASSAGES.map(([, text], i) => ({
      chunkId: `p${i}#0#0`,
      index: 0,
      start: 0,
      end: text.length,
      text,
    }));
    return RetrievalEngine.build(
      { chunks, sentences },
      createTermAnalyzer(),
      titleWeight === undefined ? {} : { titleWeight },
    );
  }
  const top2 = (e: RetrievalEngine) =>
    e
      .search({ text: 'Are Ferocactus and Silene both types of plant?' }, DEFAULT_MODE, 12000)
      .map((h) => h.docId)
      .slice(0, 2);

  it('ranks the passage the question names by its whole title among the first two, by default', () => {
    expect(top2(engine())).toContain('Silene');
    expect(top2(engine())).toContain('Ferocactus');
    // Without it the species passages, which say "Silene" more often, come first.
    expect(top2(engine(0))).not.toContain('Silene');
  });

  it('answers the same from the library’s pages, read by ranges, as in memory', async () => {
    const e = engine();
    const analyzer = createTermAnalyzer();
    const written = await writePagedIndex(e.lexicalParts(), (docId) => ({ title: docId }), 4096);
    const paged = await PagedLibrary.open(
      new MemoryRangeSource(written.data, 'pages'),
      { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
      analyzer,
    );
    const q = 'Are Ferocactus and Silene both types of plant?';
    const hits = (await paged.search(q, 'ppr', 12000)).hits;
    expect(hits).toEqual(e.search({ text: q }, 'ppr', 12000));
    expect(hits.map((h) => h.docId).slice(0, 2)).toContain('Silene');
  });
});
