// The evaluation over a library answered from its pages (src/services/query/evaluate.ts with a PagedLibrary):
// its questions go through askPaged, whose answers are the engine's bit for bit, so every score equals the score
// of the same evaluation over the library in memory. The expected values are computed here by the in-memory path,
// never copied from output. Without the documents' names (a bundle read by ranges) recall@k is left out, saying why;
// a mode the pages do not answer is refused by name before anything runs.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EvalProgress, EvalResult, QaItem } from '../../../../src/services/questions/evalProtocol.ts';
import { evaluateSet, NO_DOCUMENT_NAMES } from '../../../../src/services/query/evaluate.ts';
import { documentExternalId } from '../../../../src/services/library/documentNames.ts';
import { bundleBytes, writeBundle } from '../../../../src/core/bundle/index.ts';
import { pagesParts, writePagedIndex } from '../../../../src/core/paged/write.ts';
import { bothLibraries } from '../../../support/pagedLibraries.ts';
import { BENCH_DIR, missingSharedData } from '../../../support/sharedData.ts';
import { bundleOnlyQueryService } from '../../../support/bundleOnlyQueryService.ts';
import { byRanges, inMemory } from '../../../support/askOver.ts';

const work = await mkdtemp(join(tmpdir(), 'eval-paged-'));
afterAll(() => rm(work, { recursive: true, force: true }));

const noLlm = () => Promise.reject(new Error('no endpoint'));

/** What must be equal between the two runs: every score, and what each question ranked (timings aside). */
function scores(result: EvalResult) {
  return {
    modes: result.modes,
    questions: result.questions,
    summary: Object.fromEntries(
      Object.entries(result.summary).map(([m, s]) => [
        m,
        { cr: s.cr, recall: s.recall, labelled: s.labelled, errors: s.errors },
      ]),
    ),
    items: result.items.map((q) => ({
      id: q.id,
      modes: Object.fromEntries(
        Object.entries(q.modes).map(([m, r]) => [m, { cr: r.cr, recall: r.recall, ranked: r.ranked }]),
      ),
    })),
  };
}

const PASSAGES = [
  ['p0', 'Ada Lovelace', 'Ada Lovelace was an English mathematician who wrote the first published program.'],
  ['p1', 'Charles Babbage', 'Charles Babbage designed the Analytical Engine in London in the 1830s.'],
  ['p2', 'Luigi Menabrea', 'Luigi Menabrea, an Italian general, described the Analytical Engine in Turin.'],
  ['p3', 'Turin', 'Turin is a city on the river Po where Babbage presented his engine in 1840.'],
  ['p4', 'Mary Somerville', 'Mary Somerville introduced Ada Lovelace to Charles Babbage in 1833.'],
  ['p5', 'Po (river)', 'The Po flows eastward across northern Italy into the Adriatic Sea.'],
  [
    'p6',
    'Difference Engine',
    'The Difference Engine tabulated polynomial functions with finite differences.',
  ],
];
const ITEMS: QaItem[] = [
  {
    id: 'a',
    question: 'Who introduced the author of the first published program to Babbage?',
    answers: ['Mary Somerville'],
    supporting: ['p0', 'p4'],
    line: 1,
  },
  {
    id: 'b',
    question: 'Into which sea does the river of the city where Babbage presented his engine flow?',
    answers: ['Adriatic Sea'],
    supporting: ['p3', 'p5'],
    line: 2,
  },
  {
    id: 'c',
    question: 'What did the Difference Engine tabulate?',
    answers: ['polynomial functions'],
    supporting: [],
    line: 3,
  },
];

describe('an evaluation over a library answered from its pages', () => {
  it('scores as the library in memory does, and says why recall@k is left out without names', async () => {
    const file = join(work, 'corpus.jsonl');
    await writeFile(
      file,
      PASSAGES.map(([id, title, text]) => JSON.stringify({ id, title, text })).join('\n'),
    );
    const { library, paged, documentNames } = await bothLibraries(file);
    const request = { set: { name: 'set', items: ITEMS }, modes: ['ppr', 'bm25'], budgets: [8, 30, 1000] };
    const signal = new AbortController().signal;
    const kg = () => Promise.reject(new Error('no KG'));
    const expected = await evaluateSet(request, { ...inMemory(library, kg), llm: noLlm, signal });
    const progress: EvalProgress[] = [];
    const fromPages = await evaluateSet(request, {
      source: byRanges(paged),
      documentNames,
      llm: noLlm,
      signal,
      onProgress: (p) => progress.push(p),
    });
    expect(scores(fromPages)).toEqual(scores(expected));
    expect(fromPages.recallNote).toBeUndefined();
    // The comparison says something: some question found a supporting passage and some context held the answer.
    expect(fromPages.items.some((q) => q.modes.ppr.ranked.some((r) => r.supporting))).toBe(true);
    expect(Object.values(fromPages.summary.ppr.cr).some((x) => x > 0)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ done: 2 * ITEMS.length, total: 2 * ITEMS.length });

    // A bundle read by ranges names no document as the QA set does: the same context recall, no recall@k.
    const unnamed = await evaluateSet(request, { source: byRanges(paged), llm: noLlm, signal });
    expect(unnamed.recallNote).toBe(NO_DOCUMENT_NAMES);
    for (const m of request.modes) {
      expect(unnamed.summary[m].cr).toEqual(expected.summary[m].cr);
      expect(unnamed.summary[m].recall).toEqual({ '2': null, '5': null, '10': null });
      expect(unnamed.items.every((q) => q.modes[m].recall === null)).toBe(true);
    }

    // A mode the pages do not answer is refused by name, before any question runs.
    const before = progress.length;
    await expect(
      evaluateSet(
        { ...request, modes: ['ppr', 'dense'] },
        { source: byRanges(paged), llm: noLlm, signal, onProgress: (p) => progress.push(p) },
      ),
    ).rejects.toThrow(
      /mode dense needs the library in memory; .* answers the default mode, concept, bm25, rrf:ppr\+bm25, decompose and logical/,
    );
    expect(progress.length).toBe(before);
  });

  it('runs from the query service over a bundle read by ranges, offering the modes it answers', async () => {
    const file = join(work, 'corpus-b.jsonl');
    await writeFile(
      file,
      PASSAGES.map(([id, title, text]) => JSON.stringify({ id, title, text })).join('\n'),
    );
    const { engine, library } = await bothLibraries(file);
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({
      title: library.documents.get(docId)!.title,
    }));
    const bytes = await bundleBytes(writeBundle(pagesParts(written), { appVersion: 'test', embedder: null }));
    const service = bundleOnlyQueryService();
    await service.openBundleFile(new Blob([bytes as Uint8Array<ArrayBuffer>]), 'passages.bundle');
    const modes = await service.evaluationModes();
    // The retrieval modes the pages answer, and the reasoning modes that run over them.
    expect(modes.modes).toEqual(['ppr', 'concept', 'bm25', 'rrf:ppr+bm25', 'decompose', 'logical']);
    expect(modes.reason).toMatch(/read by ranges/);
    const request = { set: { name: 'set', items: ITEMS }, modes: ['ppr', 'bm25'], budgets: [8, 30, 1000] };
    const signal = new AbortController().signal;
    const kg = () => Promise.reject(new Error('no KG'));
    const expected = await evaluateSet(request, { ...inMemory(library, kg), llm: noLlm, signal });
    const fromBundle = await service.evaluate(request);
    expect(fromBundle.recallNote).toBe(NO_DOCUMENT_NAMES);
    for (const m of request.modes) expect(fromBundle.summary[m].cr).toEqual(expected.summary[m].cr);
    await expect(service.evaluate({ ...request, modes: ['dense'] })).rejects.toThrow(
      /mode dense needs the library in memory/,
    );
  });

  const musique = `${BENCH_DIR}/musique`;
  const skip = missingSharedData(musique, 'the paged evaluation on MuSiQue');
  it.skipIf(skip !== null)(
    'scores as the library in memory does where the walk decides (MuSiQue passages)',
    async () => {
      const { library, paged, documentNames } = await bothLibraries(`${musique}/corpus.jsonl`, 1500);
      const kept = new Set([...library.documents.values()].map((d) => documentExternalId(d)));
      // Questions whose supporting passages are all in the kept part of the corpus.
      const items = (await readFile(`${musique}/questions.jsonl`, 'utf8'))
        .trim()
        .split('\n')
        .map((l, i) => ({ ...(JSON.parse(l) as Omit<QaItem, 'line'>), line: i + 1 }))
        .filter((q) => q.supporting.length > 0 && q.supporting.every((s) => kept.has(s)))
        .slice(0, 12);
      expect(items.length).toBeGreaterThan(3);
      const request = { set: { name: 'musique', items }, modes: ['ppr', 'bm25'], budgets: [100, 1000, 3000] };
      const signal = new AbortController().signal;
      const kg = () => Promise.reject(new Error('no KG'));
      const expected = await evaluateSet(request, { ...inMemory(library, kg), llm: noLlm, signal });
      const fromPages = await evaluateSet(request, {
        source: byRanges(paged),
        documentNames,
        llm: noLlm,
        signal,
      });
      expect(scores(fromPages)).toEqual(scores(expected));
      expect(Object.values(expected.summary.ppr.recall).some((x) => x !== null && x > 0)).toBe(true);
    },
    240_000,
  );
});
