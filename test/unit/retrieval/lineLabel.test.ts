import { describe, expect, it } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex } from '../../../src/core/paged/write.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import type { PreparedDocument } from '../../../src/core/types.ts';
import {
  DEFAULT_MODE,
  headingField,
  RetrievalEngine,
  withSectionPaths,
} from '../../../src/core/retrieval/index.ts';
import { lineLabel } from '../../../src/core/retrieval/sectionPath.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const encode = (s: string) => new TextEncoder().encode(s);

// Untitled passages (as MuSiQue's): none says "line". A titled one, and a manual whose section is about lines.
const PASSAGES = [
  ...[
    'The river crosses the valley below the old mill and joins the sea at the harbour town.',
    'The harbour town holds a market each week; fishermen sell their catch on the quay.',
    'A stone bridge of three arches was built over the river in the eighteenth century.',
    'The mill ground corn for the valley until the railway brought flour from the city.',
    'The quay was rebuilt after a storm destroyed the breakwater and half the boats.',
    'The valley is known for its orchards; apples are pressed for cider in the autumn.',
  ].map((text) => JSON.stringify({ title: '', text })),
  JSON.stringify({ title: 'Harbour Railway', text: 'The railway reached the harbour town in 1861.' }),
].join('\n');
const MANUAL = [
  '# Streams',
  '',
  '## Reading a file',
  '',
  'A stream reads a file in pieces, so a large file never has to fit in memory at once.',
  '',
  '## Reading line by line',
  '',
  'The interface yields one line at a time: iterate over the lines of a file and handle each line as it arrives.',
  '',
].join('\n');

async function library(): Promise<{ docs: PreparedDocument[]; engine: RetrievalEngine }> {
  const docs = [
    ...(await prepareFile('passages.jsonl', encode(PASSAGES), { now: 0 })).documents,
    ...(await prepareFile('streams.md', encode(MANUAL), { now: 0 })).documents,
  ];
  const chunks = withSectionPaths(
    docs.map((d) => d.doc),
    docs.flatMap((d) => d.sections),
    docs.flatMap((d) => d.chunks),
  );
  const sentences = docs.flatMap((d) => d.sentences);
  return { docs, engine: RetrievalEngine.build({ chunks, sentences }, createTermAnalyzer()) };
}

describe('a .jsonl line label is no heading word', () => {
  it('is the title the parser gives an untitled line, and only that', async () => {
    const { docs } = await library();
    const untitled = docs.filter((d) => d.doc.sourceName === 'passages.jsonl#3')[0].doc;
    expect(untitled.title).toBe('passages.jsonl line 3');
    expect(lineLabel(untitled.sourceName)).toBe(untitled.title);
    const titled = docs.filter((d) => d.doc.sourceName === 'passages.jsonl#7')[0].doc;
    expect(titled.title).toBe('Harbour Railway');
    expect(lineLabel('streams.md')).toBeUndefined();
  });

  it('keeps the label in the path (shown, a source of concepts) and out of the heading field', () => {
    const paths = withSectionPaths(
      [
        { id: 'a', title: 'p.jsonl line 12', sourceName: 'p.jsonl#12' },
        { id: 'b', title: 'Harbour Railway', sourceName: 'p.jsonl#13' },
        { id: 'c', title: 'notes.txt', sourceName: 'notes.txt' },
        // Without its source the title stays a heading (records that do not carry it).
        { id: 'd', title: 'p.jsonl line 14' },
      ],
      [],
      ['a', 'b', 'c', 'd'].map((docId) => ({ docId, sectionIndex: 0 })),
    );
    expect(paths.map((c) => c.path)).toEqual([
      ['p.jsonl line 12'],
      ['Harbour Railway'],
      ['notes.txt'],
      ['p.jsonl line 14'],
    ]);
    expect(paths.map((c) => headingField(c))).toEqual([
      [],
      ['Harbour Railway'],
      ['notes.txt'],
      ['p.jsonl line 14'],
    ]);
  });

  it('does not make every untitled passage a match for "line"', async () => {
    const { engine, docs } = await library();
    const untitled = new Set(docs.filter((d) => d.doc.title.includes(' line ')).map((d) => d.doc.id));
    const hits = engine.search({ text: 'How do I read a file line by line?' }, DEFAULT_MODE, 12000);
    expect(hits[0].docId).toBe(docs.find((d) => d.doc.sourceName === 'streams.md')!.doc.id);
    // None of the untitled passages holds a word of the question: with the label in their heading path each held
    // "line" there, and the words' evidence ranked them all.
    expect(hits.filter((h) => untitled.has(h.docId))).toEqual([]);
  });

  it('answers the same from the library’s pages, read by ranges', async () => {
    const { engine } = await library();
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }), 4096);
    const paged = await PagedLibrary.open(
      new MemoryRangeSource(written.data, 'pages'),
      { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
      createTermAnalyzer(),
    );
    const q = 'How do I read a file line by line?';
    expect((await paged.search(q, 'ppr', 12000)).hits).toEqual(engine.search({ text: q }, 'ppr', 12000));
  });
});
