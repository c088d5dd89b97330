// The Evaluate view's runner (src/services/query/evaluate.ts): a failed LLM step fails its question, not the run
// (issue 23, item 5). Against the scripted server on loopback: in mode logical the planner answers one question
// with a malformed plan twice (reply and repair); with answers on, the answer call for another question gets a
// 401. Each question is scored as failed with its reason, the others run, and the summary counts the reasons.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCorpus } from '../../../../src/cli/benchData.ts';
import { LlmClient } from '../../../../src/core/llm/client.ts';
import { RetrievalEngine } from '../../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import { evaluateSet } from '../../../../src/services/query/evaluate.ts';
import { openLibrary, type QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { kagResponder } from '../../../support/scriptedKag.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { inMemory } from '../../../support/askOver.ts';

const PASSAGES = [
  ['p0', 'Phoolwari', 'Phoolwari is a 1946 Indian film directed by Chaturbhuj Doshi.'],
  ['p1', 'Aas Ka Panchhi', 'Aas Ka Panchhi is a 1961 Indian film directed by J. Om Prakash.'],
  ['p2', 'Turin', 'Turin is a city in northern Italy on the river Po.'],
];
const BAD_PLAN = 'Which film was released first, Aas Ka Panchhi or Phoolwari?';
const ITEMS = [
  { id: 'q1', question: BAD_PLAN, answers: ['Phoolwari'], supporting: ['p0', 'p1'], line: 1 },
  { id: 'q2', question: 'Which city lies on the river Po?', answers: ['Turin'], supporting: ['p2'], line: 2 },
];

let dir = '';
let library: QuestionLibrary;
let server: ScriptedLlmServer;
let client: LlmClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-failures-'));
  const file = join(dir, 'corpus.jsonl');
  await writeFile(file, PASSAGES.map(([id, title, text]) => JSON.stringify({ id, title, text })).join('\n'));
  const corpus = await prepareCorpus(file, 1200);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    createTermAnalyzer(),
  );
  library = openLibrary(
    {
      meta: undefined,
      documents: corpus.documents.map((d) => d.doc),
      sections: corpus.documents.flatMap((d) => d.sections),
      chunks: corpus.chunks,
      sentences: corpus.sentences,
      vectors: new Map(),
      graph: undefined,
    },
    () => engine,
  );
  server = await startScriptedLlmServer({
    responders: [kagResponder({ plan: (q) => (q === BAD_PLAN ? { steps: [{ step: null }] } : undefined) })],
  });
  client = new LlmClient(
    {
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      concurrency: 1,
      priceInPerM: 0,
      priceOutPerM: 0,
    },
    { backoff: { baseMs: 5, maxMs: 20 } },
  );
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const context = () => ({
  ...inMemory(library, () => Promise.reject(new Error('no KG'))),
  llm: () => Promise.resolve(client),
  signal: new AbortController().signal,
});

describe('evaluateSet: a failed LLM step fails its question', () => {
  it('scores a question whose plan is malformed twice as failed, with its reason, and runs the next', async () => {
    const result = await evaluateSet(
      { set: { name: 'two', items: ITEMS }, modes: ['logical', 'bm25'], budgets: [1000] },
      context(),
    );
    expect(result.cancelled).toBe(false);
    expect(result.questions).toBe(2);
    const q1 = result.items[0].modes.logical;
    expect(q1.error).toMatch(/^logical: plan: malformed output twice: /);
    expect(q1.cr).toEqual([0]);
    expect(result.summary.logical.errorReasons['logical: plan: malformed output twice']).toBe(1);
    // bm25 ran after it, over both questions, without failures.
    expect(result.summary.bm25).toMatchObject({ questions: 2, errors: 0, errorReasons: {} });
  });

  it('scores a question whose answer call fails as answered wrong, with its reason, and answers the next', async () => {
    // The first answer call gets a 401 (not retried); the second is answered.
    await fetch(`${server.url}/__control/script`, {
      method: 'POST',
      body: JSON.stringify([{ kind: 'unauthorized', when: 'Which film was released first' }]),
    });
    const result = await evaluateSet(
      {
        set: { name: 'two', items: ITEMS },
        modes: ['bm25'],
        budgets: [1000],
        answers: { budget: 500, judge: false },
      },
      context(),
    );
    const [first, second] = result.items.map((q) => q.modes.bm25);
    expect(first.error).toMatch(/^answer: /);
    expect(first.answer).toMatchObject({ text: '', em: 0, f1: 0 });
    expect(second.error).toBeUndefined();
    expect(second.answer?.text).toBeTruthy();
    expect(result.summary.bm25.errors).toBe(1);
    expect(Object.values(result.summary.bm25.errorReasons)).toEqual([1]);
  });
});
