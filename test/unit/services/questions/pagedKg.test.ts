// The KG modes over a bundle read by ranges (askPaged with the bundle's KG, src/services/library/readOnlyBundle.ts
// pagedKgLoader): a bundle built by `cli index --pages --kg` against the scripted server on loopback (its extractor
// takes capitalized word runs as entities) answers `kg` and `hybrid` from its pages, with its KG read whole and the
// records of the KG's chunks found by id, exactly as the same bundle read whole answers them in memory (askSnapshot,
// the engine `cli ask --whole` and ?bundle= use): the expected values are that in-memory answer, never copied from
// output. `logical` searches the KG first over pages too. A damaged KG part is refused by its digest, and a bundle
// without a KG refuses the KG modes, naming what it answers.
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askSnapshot } from '../../../../src/cli/ask.ts';
import { readBundleFile } from '../../../../src/cli/bundleIo.ts';
import { FileRangeSource } from '../../../../src/cli/fileRangeSource.ts';
import { run as index } from '../../../../src/cli/index.ts';
import type { IndexSnapshot } from '../../../../src/core/bundle/index.ts';
import { MemoryRangeSource, openPagedBundle, type PagedBundle } from '../../../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import { openLibrary } from '../../../../src/services/library/questionLibrary.ts';
import {
  bundleKgIndex,
  pagedAtomicLoader,
  pagedKgLoader,
} from '../../../../src/services/library/readOnlyBundle.ts';
import { evaluateSet } from '../../../../src/services/query/evaluate.ts';
import { snapshotToCorpus } from '../../../../src/store/bundleImport.ts';
import { askPaged, inMemory } from '../../../support/askOver.ts';
import type { QuestionMode } from '../../../../src/services/questions/modeRegistry.ts';
import type { Evidence } from '../../../../src/services/questions/queryProtocol.ts';
import { captureCli as capture } from '../../../support/captureCli.ts';
import { FILM_PASSAGES, LOTHAIR_PASSAGES } from '../../../support/passages.ts';
import { scriptedClient } from '../../../support/scriptedClient.ts';
import { kagResponder } from '../../../support/scriptedKag.ts';
import { scriptedPike } from '../../../support/scriptedPike.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { builtFile } from '../../../support/builtOnce.ts';
import { bundleOnlyQueryService } from '../../../support/bundleOnlyQueryService.ts';
import { RANGES_PAGE, REPO_DOCS } from '../../../support/repoDocs.ts';

let work = '';
let server: ScriptedLlmServer;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'paged-kg-'));
  server = await startScriptedLlmServer({ responders: [kagResponder(), scriptedPike()] });
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

/** The flags of `cli index --pages --kg` (κ 1 unless given) but the endpoint's. */
const KG_FLAGS = [
  ...['--embedder', 'none', '--pages', '--quiet'],
  ...['--kg', '--kappa', '1', '--llm-model', 'scripted-model'],
];

/** `cli index <inputs> --pages --kg` (κ 1 unless given) into `name`. */
async function kgBundle(name: string, inputs: string[], ...extra: string[]): Promise<string> {
  const out = join(work, name);
  const built = await capture(() =>
    index([...inputs, '--out', out, ...KG_FLAGS, '--llm-base-url', server.baseUrl, ...extra]),
  );
  expect(built.code, built.err).toBe(0);
  return out;
}

let docsBuilt: Promise<string> | undefined;

/** The KG bundle of the frozen repository docs, built once (test/support/builtOnce.ts): a KG build asks the scripted
 *  server once a chunk, the largest cost here, and every test that needs a KG beside pages can read this one. */
function docsBundle(): Promise<string> {
  docsBuilt ??= builtFile(
    'pagedKg.docs-kg',
    { paths: [REPO_DOCS], options: KG_FLAGS },
    join(work, 'docs.bundle'),
    () => kgBundle('docs.bundle', [REPO_DOCS]),
  );
  return docsBuilt;
}

let filmsBuilt: Promise<{ bundle: string; calls: number }> | undefined;

/**
 * `cli index --kg --atomic` of the Lothair and film passages (the scripted extraction makes the films' release dates
 * attributes), built once for the file with its chat requests counted: the atomic questions' test checks that count
 * and reads the bundle, logical reads its KG (it reads no atomic question; a second KG build without them was only
 * time).
 */
function filmsBundle(): Promise<{ bundle: string; calls: number }> {
  filmsBuilt ??= (async () => {
    const file = join(work, 'films.jsonl');
    await writeFile(file, [...LOTHAIR_PASSAGES, ...FILM_PASSAGES].map((p) => JSON.stringify(p)).join('\n'));
    server.reset();
    const bundle = await kgBundle('films.bundle', [file], '--atomic');
    return { bundle, calls: server.requests.filter((r) => r.path === '/v1/chat/completions').length };
  })();
  return filmsBuilt;
}

/** What must be equal between the two answers: the evidence as the Ask view gets it. */
function comparable(evidence: readonly Evidence[]) {
  return evidence.map((e) => ({
    chunkId: e.chunkId,
    docId: e.docId,
    chunkStart: e.chunkStart,
    text: e.text,
    score: e.score,
    bestSentences: e.bestSentences,
    provenance: e.provenance,
    relevance: e.relevance,
  }));
}

interface Opened {
  whole: IndexSnapshot;
  paged: PagedBundle;
  source: FileRangeSource;
}

async function openBoth(bundle: string): Promise<Opened> {
  const whole = await readBundleFile(bundle);
  const source = await FileRangeSource.open(bundle);
  const paged = await openPagedBundle(source, createTermAnalyzer());
  if (!paged) throw new Error(`${bundle} has no pages`);
  return { whole, paged, source };
}

describe('the KG modes over a bundle read by ranges', () => {
  let docs: Opened;
  beforeAll(async () => {
    // The frozen copy of this repository's docs (test/fixtures/repo-docs): hundreds of chunks in many record groups, chunks deep in long documents.
    docs = await openBoth(await docsBundle());
  }, 180_000);
  afterAll(() => docs.source.close());

  const questions = [
    'How does ConceptRAG open a bundle in Chromium?',
    'What does PageRank select for the KG?',
    'Which tests use the scripted server and Playwright?',
    'What does MuSiQue measure with HotpotQA?',
  ];
  // kg and hybrid at two budgets answer as the bundle read whole: the LibrarySource contract
  // (test/unit/services/source/librarySource.contract.test.ts, its `kg` library).

  it('reads the KG once, on its first question, and then only the records a question lacks', async () => {
    const source = await FileRangeSource.open(join(work, 'docs.bundle'));
    try {
      const paged = (await openPagedBundle(source, createTermAnalyzer()))!;
      const opened = source.bytesRead;
      const loader = pagedKgLoader(paged)!;
      const question = { question: questions[0], mode: 'kg' as QuestionMode, budget: 6000 };
      const first = await askPaged(paged.library, question, { kg: loader });
      const kgParts = paged.manifest.parts
        .filter((p) => p.name === 'table.kgEntities.bin' || p.name === 'table.kgRelations.bin')
        .reduce((sum, p) => sum + p.length, 0);
      // The two KG parts whole, and the records the question showed (its own reads).
      expect(source.bytesRead - opened).toBe(kgParts + first.reads.bytes);
      expect(first.reads.bytes).toBeGreaterThan(0);
      const again = source.bytesRead;
      const second = await askPaged(paged.library, question, { kg: loader });
      expect(second.evidence.map((e) => e.chunkId)).toEqual(first.evidence.map((e) => e.chunkId));
      expect(source.bytesRead).toBe(again);
    } finally {
      await source.close();
    }
  });

  it('the query worker (Open bundle read-only…) answers kg and hybrid over the pages, and evaluates them', async () => {
    const service = bundleOnlyQueryService();
    const bytes = await readFile(join(work, 'docs.bundle'));
    const opened = await service.openBundleFile(new Blob([bytes]), 'docs.bundle');
    expect(opened.byRanges).toBe(true);
    for (const mode of ['kg', 'hybrid'] as const) {
      const memory = await askSnapshot(docs.whole, questions[0], { mode, budget: 3000 });
      const asked = await service.ask({ question: questions[0], mode, budget: 3000 });
      expect(comparable(asked.evidence)).toEqual(comparable(memory.evidence));
    }
    const modes = await service.evaluationModes();
    expect(modes.modes).toEqual([
      'ppr',
      'concept',
      'bm25',
      'rrf:ppr+bm25',
      'hybrid',
      'kg',
      'decompose',
      'logical',
    ]);
    expect(modes.reason).toMatch(
      /A library read by ranges answers the default mode, concept, bm25, rrf:ppr\+bm25, hybrid, kg, decompose and logical, and names its documents by id only/,
    );
    // Evaluate over the pages scores kg as the library in memory does (context recall per question).
    const items = questions.map((question, i) => ({
      id: `q${i}`,
      question,
      answers: ['PageRank', 'Chromium'],
      supporting: [],
      line: i + 1,
    }));
    const request = { set: { name: 'set', items }, modes: ['kg', 'hybrid'], budgets: [500, 3000] };
    const library = openLibrary(snapshotToCorpus(docs.whole));
    const signal = new AbortController().signal;
    const expected = await evaluateSet(request, {
      ...inMemory(library, async () => bundleKgIndex(docs.whole.tables)),
      llm: () => Promise.reject(new Error('no LLM in this test')),
      signal,
    });
    const fromPages = await service.evaluate(request);
    for (const m of request.modes) expect(fromPages.summary[m].cr, m).toEqual(expected.summary[m].cr);
    expect(Object.values(expected.summary.kg.cr).some((cr) => cr > 0)).toBe(true);
  });

  it('cli ask answers kg and hybrid by ranges as it does with --whole', async () => {
    const bundle = join(work, 'docs.bundle');
    for (const mode of ['kg', 'hybrid']) {
      const ask = async (...extra: string[]) => {
        const { run } = await import('../../../../src/cli/ask.ts');
        const r = await capture(() => run([bundle, questions[1], '--mode', mode, '--json', ...extra]));
        expect(r.code, r.err).toBe(0);
        return { out: JSON.parse(r.out) as { context: unknown[] }, err: r.err };
      };
      const ranges = await ask('--stats');
      const whole = await ask('--whole');
      expect(ranges.err).toMatch(/^ask: read \d+ bytes in \d+ rounds/m);
      expect(ranges.out.context.length).toBeGreaterThan(0);
      expect(ranges.out.context).toEqual(whole.out.context);
    }
  });
});

describe('logical over pages searches the KG first', () => {
  it('the same run as over the bundle read whole, from the KG’s triples', async () => {
    // The films beside the Lothair passages (the scripted extraction makes their release dates attributes).
    const both = await openBoth((await filmsBundle()).bundle);
    try {
      const llm = scriptedClient(server);
      const question = 'Which film came out first, Alpha Dawn or Beta Storm?';
      const chats = () => server.requests.filter((r) => r.path === '/v1/chat/completions').length;
      server.reset();
      const memory = await askSnapshot(both.whole, question, { mode: 'logical', budget: 3000, llm });
      const memoryCalls = chats();
      server.reset();
      const paged = await askPaged(
        both.paged.library,
        { question, mode: 'logical', budget: 3000 },
        { kg: pagedKgLoader(both.paged)!, llm: async () => llm },
      );
      expect(chats()).toBe(memoryCalls);
      const steps = (trace: Array<{ round: number; kind: string; title: string }> | undefined) =>
        (trace ?? []).map((e) => `${e.round}:${e.kind}:${e.title}`);
      expect(steps(paged.trace)).toEqual(steps(memory.output.trace));
      expect(paged.facts).toEqual(memory.output.facts);
      expect(comparable(paged.evidence)).toEqual(comparable(memory.evidence));
      // It had a KG to search: the trace does not say it read passages for want of one.
      expect(steps(paged.trace).some((s) => s.includes('No knowledge graph'))).toBe(false);
      // The answer came from the KG's attributes, and the chunks behind its triples were read by id.
      expect(paged.facts?.[0]).toBe('Answer established by the logical-form solver: Beta Storm');
      expect(paged.evidence[0].provenance.via).toBe('triple (Alpha Dawn, release date, 1994-03-12)');
    } finally {
      await both.source.close();
    }
  }, 60_000);
});

describe('atomic questions in a bundle read by ranges (cli index --kg --atomic)', () => {
  it('answers atomic, and decompose searches them, as the bundle read whole; the query worker offers atomic', async () => {
    const { bundle, calls } = await filmsBundle();
    // One call a chunk for both layers (the app's one pass).
    expect(calls).toBe(LOTHAIR_PASSAGES.length + FILM_PASSAGES.length);
    const both = await openBoth(bundle);
    try {
      expect(both.paged.manifest.counts.atomicQuestions).toBeGreaterThan(0);
      const atomic = pagedAtomicLoader(both.paged)!;
      // atomic itself answers as the bundle read whole: the LibrarySource contract (its `kg` library).
      const questions = [
        'When did the mother of Lothair II die?',
        'Where was the director of Alpha Dawn born?',
      ];
      // decompose picks among the atomic questions (the scripted model: the question, then a name of the context).
      const llm = scriptedClient(server);
      const question = 'When did the mother of Lothair II die?';
      const memory = await askSnapshot(both.whole, question, { mode: 'decompose', budget: 3000, llm });
      const paged = await askPaged(
        both.paged.library,
        { question, mode: 'decompose', budget: 3000 },
        { atomic, llm: async () => llm },
      );
      expect(comparable(paged.evidence)).toEqual(comparable(memory.evidence));
      expect(paged.trace?.[1].title).toMatch(/\(atomic questions, top/);
      expect(paged.evidence.length).toBeGreaterThan(0);

      // The query worker (Open bundle read-only…) answers atomic over the pages too.
      const service = bundleOnlyQueryService();
      await service.openBundleFile(new Blob([await readFile(bundle)]), 'films.bundle');
      expect((await service.evaluationModes()).modes).toEqual([
        'ppr',
        'concept',
        'bm25',
        'rrf:ppr+bm25',
        'hybrid',
        'kg',
        'atomic',
        'decompose',
        'logical',
      ]);
      const asked = await service.ask({ question: questions[1], mode: 'atomic', budget: 60 });
      expect(comparable(asked.evidence)).toEqual(
        comparable((await askSnapshot(both.whole, questions[1], { mode: 'atomic', budget: 60 })).evidence),
      );
      // And cli ask by ranges, as with --whole.
      const { run } = await import('../../../../src/cli/ask.ts');
      const ask = async (...extra: string[]) => {
        const r = await capture(() => run([bundle, questions[0], '--mode', 'atomic', '--json', ...extra]));
        expect(r.code, r.err).toBe(0);
        return { out: JSON.parse(r.out) as { context: unknown[] }, err: r.err };
      };
      const ranges = await ask('--stats');
      expect(ranges.err).toMatch(/^ask: read \d+ bytes in \d+ rounds/m);
      expect(ranges.out.context).toEqual((await ask('--whole')).out.context);
    } finally {
      await both.source.close();
    }
  }, 60_000);
});

describe('refusals', () => {
  it('a damaged KG part is refused by its digest when the first KG question reads it', async () => {
    // Any bundle with a KG beside its pages: the docs' (a second KG build of a smaller one was only time).
    const bytes = new Uint8Array(await readFile(await docsBundle()));
    const healthy = (await openPagedBundle(new MemoryRangeSource(bytes), createTermAnalyzer()))!;
    const part = healthy.manifest.parts.find((p) => p.name === 'table.kgEntities.bin')!;
    bytes[part.offset! + Math.floor(part.length / 2)] ^= 0xff;
    const damaged = (await openPagedBundle(new MemoryRangeSource(bytes), createTermAnalyzer()))!;
    const ask = (mode: QuestionMode) =>
      askPaged(
        damaged.library,
        { question: 'What does ConceptRAG read by ranges?', mode, budget: 2000 },
        { kg: pagedKgLoader(damaged)! },
      );
    await expect(ask('kg')).rejects.toThrow('corrupted (SHA-256 mismatch in part table.kgEntities.bin)');
    // The pages themselves are sound: the default mode still answers.
    expect((await ask('ppr')).evidence.length).toBeGreaterThan(0);
  }, 60_000);

  it('a bundle without a KG refuses the KG modes, naming what it answers; one with a KG names kg and hybrid', async () => {
    const plain = join(work, 'plain.bundle');
    const built = await capture(() =>
      index([RANGES_PAGE, '--out', plain, '--embedder', 'none', '--pages', '--quiet']),
    );
    expect(built.code, built.err).toBe(0);
    const source = await FileRangeSource.open(plain);
    try {
      const paged = (await openPagedBundle(source, createTermAnalyzer()))!;
      expect(pagedKgLoader(paged)).toBeUndefined();
      const ask = (mode: QuestionMode, kg?: ReturnType<typeof pagedKgLoader>) =>
        askPaged(paged.library, { question: 'ranges', mode, budget: 2000 }, kg ? { kg } : {});
      await expect(ask('kg')).rejects.toThrow(
        'mode kg needs a knowledge graph, which this library has not; a library read by ranges answers the default mode, concept, bm25, rrf:ppr+bm25, decompose and logical',
      );
      await expect(ask('atomic', () => Promise.reject(new Error('unused')))).rejects.toThrow(
        'mode atomic needs atomic questions, which this library has not; a library read by ranges answers the default mode, concept, bm25, rrf:ppr+bm25, hybrid, kg, decompose and logical',
      );
      await expect(ask('dense', () => Promise.reject(new Error('unused')))).rejects.toThrow(
        'mode dense needs the library in memory; a library read by ranges answers the default mode, concept, bm25, rrf:ppr+bm25, hybrid, kg, decompose and logical',
      );
      const { run } = await import('../../../../src/cli/ask.ts');
      await expect(run([plain, 'ranges', '--mode', 'hybrid'])).rejects.toThrow(
        'ask: mode hybrid needs a knowledge graph, which this library has not; a library read by ranges answers',
      );
    } finally {
      await source.close();
    }
  });
});
