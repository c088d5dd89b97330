// The bridge hop of a multi-hop question (pprSearch.ts bridgeHop; issue 45): "Who founded the company that made the
// Zorblax?" — the passage about the Zorblax names the company, and the passage about the company holds one word of
// the question. The company's name, which the question does not write, leads from the first passage to the second.
import { describe, expect, it } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex } from '../../../src/core/paged/write.ts';
import { DEFAULT_MODE, RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const QUESTION = 'Who founded the company that made the Zorblax console?';
const PASSAGES: Array<[string, string]> = [
  [
    'zorblax',
    'The Zorblax is a handheld console made by Quimtek Industries of Bergen, sold from 1989 to 1994.',
  ],
  ['quimtek', 'Quimtek Industries was founded by Hedda Varnhagen, an engineer from Trondheim, in 1971.'],
  // Quimtek as an encyclopedia writes about it: many passages name it, one says who founded it.
  ...[
    'radios',
    'pagers',
    'modems',
    'synthesisers',
    'cameras',
    'phones',
    'printers',
    'scanners',
    'watches',
    'amplifiers',
    'speakers',
    'keyboards',
  ].map((what, i): [string, string] => [
    `quimtek-${i}`,
    `In ${1972 + i} Quimtek Industries sold ${what}; Quimtek Industries and Quimtek dealers had ${i + 3} Quimtek shops.`,
  ]),
  // Companies that were founded and made things, as an encyclopedia holds many, each named in two passages.
  ...['Norrvik', 'Alder', 'Castell', 'Dunmore', 'Ebbing', 'Fallow', 'Garron', 'Holm'].flatMap(
    (name, i): Array<[string, string]> => [
      [
        `${name.toLowerCase()}-a`,
        `The ${name} company was founded in ${1900 + i} and made paper, then the company made boxes.`,
      ],
      [`${name.toLowerCase()}-b`, `${name} is a river town; the ${name} mill stands by ${i + 2} bridges.`],
    ],
  ),
  ['console', 'A console is a cabinet; a game console is made for play at home.'],
];

function engine(bridgeSlots?: number) {
  const chunks = PASSAGES.map(([id, text]) => ({
    id: `${id}#0#0`,
    docId: id,
    text,
    tokens: 30,
    start: 0,
    path: [],
  }));
  const sentences = PASSAGES.map(([id, text]) => ({
    chunkId: `${id}#0#0`,
    index: 0,
    start: 0,
    end: text.length,
    text,
  }));
  return RetrievalEngine.build(
    { chunks, sentences },
    createTermAnalyzer(),
    bridgeSlots === undefined ? {} : { bridgeSlots },
  );
}
const rankOf = (e: RetrievalEngine, docId: string) =>
  e
    .search({ text: QUESTION }, DEFAULT_MODE, 12000)
    .map((h) => h.docId)
    .indexOf(docId) + 1;

describe('bridge hop', () => {
  it('brings the passage about the first hop’s answer into the first four, by default', () => {
    expect(rankOf(engine(), 'zorblax')).toBe(1);
    expect(rankOf(engine(), 'quimtek')).toBeGreaterThan(0);
    expect(rankOf(engine(), 'quimtek')).toBeLessThanOrEqual(4);
    // Without it the companies that were founded and made things come first.
    expect(rankOf(engine(0), 'quimtek')).toBeGreaterThan(4);
  });

  it('answers the same from the library’s pages, read by ranges, as in memory', async () => {
    const e = engine();
    const written = await writePagedIndex(e.lexicalParts(), (docId) => ({ title: docId }), 4096);
    const paged = await PagedLibrary.open(
      new MemoryRangeSource(written.data, 'pages'),
      { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
      createTermAnalyzer(),
    );
    const hits = (await paged.search(QUESTION, 'ppr', 12000)).hits;
    expect(hits).toEqual(e.search({ text: QUESTION }, 'ppr', 12000));
    expect(hits.map((h) => h.docId).indexOf('quimtek') + 1).toBeLessThanOrEqual(4);
  });
});
