// The in-app evaluation (src/services/query/evaluate.ts) against the CLI bench on the same corpus and questions: the
// same CR@budget and recall@k per mode, because both score through src/core/metrics.ts. Plus the QA-set reader's
// refusals (file, line, field), CSV with quoted cells, progress and cancel.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runBench } from '../../../../src/cli/bench.ts';
import { prepareCorpus } from '../../../../src/cli/benchData.ts';
import { RetrievalEngine } from '../../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import type { EvalProgress } from '../../../../src/services/questions/evalProtocol.ts';
import { evaluateSet } from '../../../../src/services/query/evaluate.ts';
import { JUDGE_PROMPT } from '../../../../src/services/query/evaluate.ts';
import { LlmClient } from '../../../../src/core/llm/client.ts';
import { parseQaSet } from '../../../../src/services/questions/qaSet.ts';
import { startScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { openLibrary, type QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { inMemory } from '../../../support/askOver.ts';

const PASSAGES = [
  [
    'p0',
    'Ada Lovelace',
    'Ada Lovelace was an English mathematician. She wrote the first published program for the Analytical Engine in 1843.',
  ],
  [
    'p1',
    'Charles Babbage',
    'Charles Babbage designed the Analytical Engine in London. His Difference Engine was never finished.',
  ],
  [
    'p2',
    'Luigi Menabrea',
    'Luigi Menabrea was an Italian general. He wrote an article on the Analytical Engine after a lecture in Turin.',
  ],
  [
    'p3',
    'Turin',
    'Turin is a city in northern Italy on the river Po. Babbage presented his engine there in 1840.',
  ],
  [
    'p4',
    'Mary Somerville',
    'Mary Somerville was a Scottish scientist. She introduced Ada Lovelace to Charles Babbage in 1833.',
  ],
  [
    'p5',
    'Po (river)',
    'The Po is the longest river in Italy. It flows eastward across northern Italy to the Adriatic Sea.',
  ],
  [
    'p6',
    'Adriatic Sea',
    'The Adriatic Sea separates the Italian Peninsula from the Balkans. Venice lies on its shore.',
  ],
  [
    'p7',
    'Difference Engine',
    'The Difference Engine was an automatic mechanical calculator designed to tabulate polynomial functions.',
  ],
];
const QUESTIONS = [
  {
    id: 'a',
    question: 'Who introduced the author of the first published program to Babbage?',
    answers: ['Mary Somerville'],
    supporting: ['p0', 'p4'],
  },
  {
    id: 'b',
    question: 'Into which sea does the river of the city where Babbage presented his engine flow?',
    answers: ['Adriatic Sea', 'the Adriatic'],
    supporting: ['p3', 'p5', 'p6'],
  },
  {
    id: 'c',
    question: 'What nationality was the general who wrote about the Analytical Engine?',
    answers: ['Italian'],
    supporting: ['p2'],
  },
  {
    id: 'd',
    question: 'When did Babbage present his engine in Turin?',
    answers: ['1840'],
    supporting: ['p3'],
  },
  {
    id: 'e',
    question: 'What did the Difference Engine tabulate?',
    answers: ['polynomial functions'],
    supporting: [],
  },
];

let dir: string;
let library: QuestionLibrary;
const corpusFile = () => join(dir, 'corpus.jsonl');
const questionsFile = () => join(dir, 'questions.jsonl');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-'));
  await writeFile(
    corpusFile(),
    PASSAGES.map(([id, title, text]) => JSON.stringify({ id, title, text })).join('\n') + '\n',
  );
  await writeFile(questionsFile(), QUESTIONS.map((q) => JSON.stringify(q)).join('\n') + '\n');
  // The library as the app's query worker holds it, over the documents the app's parser makes of the same file.
  const corpus = await prepareCorpus(corpusFile(), 1200);
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
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = (signal = new AbortController().signal, onProgress?: (p: EvalProgress) => void) => ({
  ...inMemory(library, () => Promise.reject(new Error('no KG'))),
  llm: () => Promise.reject(new Error('no endpoint')),
  signal,
  onProgress,
});

describe('evaluateSet', () => {
  it('gives the CLI bench’s CR@budget and recall@k for every mode', async () => {
    const modes = ['ppr', 'bm25', 'concept'];
    const budgets = [12, 40, 1000];
    const json = join(dir, 'bench.json');
    const code = await runBench([
      '--corpus',
      corpusFile(),
      '--questions',
      questionsFile(),
      '--embedder',
      'none',
      '--modes',
      modes.join(','),
      '--budgets',
      budgets.join(','),
      '--json',
      json,
    ]);
    expect(code).toBe(0);
    const bench = JSON.parse(await readFile(json, 'utf8')) as {
      modes: Record<string, { cr: Record<string, number>; recall: Record<string, number | null> }>;
    };
    const set = parseQaSet('questions.jsonl', await readFile(questionsFile(), 'utf8'));
    const result = await evaluateSet({ set, modes, budgets }, context());
    expect(result.cancelled).toBe(false);
    expect(result.questions).toBe(QUESTIONS.length);
    for (const mode of modes) {
      expect(result.summary[mode].cr, mode).toEqual(bench.modes[mode].cr);
      expect(result.summary[mode].recall, mode).toEqual(bench.modes[mode].recall);
    }
    // Not every figure is 0 or 1: the comparison says something.
    const all = modes.flatMap((m) => [
      ...Object.values(result.summary[m].cr),
      ...Object.values(result.summary[m].recall),
    ]);
    expect(all.some((x) => x !== null && x > 0 && x < 1)).toBe(true);
    // The per-question rows name the supporting passages found among the ranked documents.
    const b = result.items.find((q) => q.id === 'b')!;
    for (const mode of modes) {
      const found = b.modes[mode].ranked.filter((r) => r.supporting).map((r) => r.externalId);
      expect(found.every((id) => QUESTIONS[1].supporting.includes(id))).toBe(true);
    }
    expect(result.items.find((q) => q.id === 'e')!.modes.ppr.recall).toBeNull();
  });

  it('reports progress and stops when cancelled from another task, returning what it scored', async () => {
    const stop = new AbortController();
    const seen: EvalProgress[] = [];
    const set = parseQaSet('questions.jsonl', await readFile(questionsFile(), 'utf8'));
    const result = await evaluateSet(
      { set, modes: ['ppr', 'bm25'], budgets: [1000] },
      context(stop.signal, (p) => {
        seen.push(p);
        // As the page's Cancel arrives (Comlink): a message, handled between questions, not a call inside the run.
        if (p.done === 2) {
          const message = new MessageChannel();
          message.port1.onmessage = () => {
            message.port1.close();
            stop.abort();
          };
          message.port2.postMessage('cancel');
        }
      }),
    );
    expect(result.cancelled).toBe(true);
    // Question 3 was under way when the cancel was sent; the run stops at the next question or the one after.
    expect(result.summary.ppr.questions).toBeGreaterThanOrEqual(3);
    expect(result.summary.ppr.questions).toBeLessThan(QUESTIONS.length);
    expect(result.items).toHaveLength(result.summary.ppr.questions);
    expect(result.summary.bm25).toBeUndefined();
    expect(seen[0]).toEqual({ done: 0, total: 10, mode: 'ppr', question: 1 });
  });
});

describe('evaluateSet with an endpoint', () => {
  it('writes an answer per question, scores EM/F1 as the bench does, and has the LLM judge it (one repair)', async () => {
    // The scripted model answers the Somerville question right and the others wrongly; its judge compares the
    // gold answer's first word with the graded answer, so its verdicts are known in advance.
    const server = await startScriptedLlmServer({
      answer: (question) =>
        question.includes('introduced') ? 'Mary Somerville [1].' : 'Charles Babbage [2].',
      responders: [
        (messages) => {
          if (messages[0]?.content !== JUDGE_PROMPT) return undefined;
          const user = messages[1].content;
          const gold = /Gold answer: (.*)/.exec(user)![1].split(' ')[0];
          const graded = /Answer to grade: (.*)/.exec(user)![1];
          return JSON.stringify({ correct: graded.includes(gold), reason: 'scripted' });
        },
      ],
    });
    try {
      // The first judging reply is malformed: the step repairs it once.
      await fetch(`${server.url}/__control/script`, {
        method: 'POST',
        body: JSON.stringify([{ kind: 'malformed', when: 'You grade answers' }]),
      });
      const client = new LlmClient({
        baseUrl: server.baseUrl,
        model: 'scripted-model',
        apiKey: '',
        concurrency: 1,
        priceInPerM: 0,
        priceOutPerM: 0,
      });
      const set = parseQaSet('questions.jsonl', await readFile(questionsFile(), 'utf8'));
      const items = set.items.filter((q) => ['a', 'c', 'd'].includes(q.id));
      const result = await evaluateSet(
        {
          set: { name: 'three', items },
          modes: ['bm25'],
          budgets: [1000],
          answers: { budget: 500, judge: true },
        },
        { ...context(), llm: () => Promise.resolve(client) },
      );
      const byId = Object.fromEntries(result.items.map((q) => [q.id, q.modes.bm25.answer!]));
      expect(byId.a).toMatchObject({ text: 'Mary Somerville [1].', em: 1, f1: 1, judged: { correct: true } });
      expect(byId.c).toMatchObject({ em: 0, f1: 0, judged: { correct: false } });
      expect(byId.d).toMatchObject({ em: 0, f1: 0, judged: { correct: false } });
      expect(result.summary.bm25).toMatchObject({ em: 0.3333, f1: 0.3333, judged: 0.3333, judgedCount: 3 });
      expect(result.answerBudget).toBe(500);
      const repairs = server.requests.filter((r) =>
        r.body?.messages?.some((m) => m.content.startsWith('That reply was not valid')),
      );
      expect(repairs).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('evaluateSet cancelled during an LLM call', () => {
  it('leaves the question out and returns the ones scored, marked cancelled', async () => {
    const server = await startScriptedLlmServer({ latencyMs: 400 });
    try {
      const client = new LlmClient({
        baseUrl: server.baseUrl,
        model: 'scripted-model',
        apiKey: '',
        concurrency: 1,
        priceInPerM: 0,
        priceOutPerM: 0,
      });
      const stop = new AbortController();
      const set = parseQaSet('questions.jsonl', await readFile(questionsFile(), 'utf8'));
      const result = await evaluateSet(
        { set, modes: ['bm25'], budgets: [1000], answers: { budget: 500, judge: false } },
        {
          ...context(stop.signal, (p) => {
            // Question 2's answer is being written (the server waits 400 ms before replying).
            if (p.done === 1) setTimeout(() => stop.abort(), 100);
          }),
          llm: () => Promise.resolve(client),
        },
      );
      expect(result.cancelled).toBe(true);
      expect(result.summary.bm25.questions).toBe(1);
      expect(result.items).toHaveLength(1);
      expect(result.items[0].modes.bm25.answer?.text).toBeTruthy();
    } finally {
      await server.close();
    }
  });
});

describe('parseQaSet', () => {
  it('names the file, line and field of a bad line', () => {
    const good = JSON.stringify({ question: 'Q?', answers: ['A'] });
    expect(() => parseQaSet('set.jsonl', `${good}\n\n{"question": "Q2?"}\n`)).toThrow(
      'QA set set.jsonl line 3: no "answers" (a list of strings) or "answer"',
    );
    expect(() => parseQaSet('set.jsonl', `${good}\n{"question": 3, "answers": ["x"]}`)).toThrow(
      'QA set set.jsonl line 2: no "question" string',
    );
    expect(() => parseQaSet('set.jsonl', `{"question": "Q", "answers": ["x"], "supporting": "p1"}`)).toThrow(
      'QA set set.jsonl line 1: "supporting" must be a list of strings',
    );
    expect(() => parseQaSet('set.jsonl', 'not json')).toThrow(/QA set set\.jsonl line 1: not JSON/);
    expect(() => parseQaSet('set.txt', good)).toThrow('expected a .jsonl or .csv file');
  });

  it('reads a CSV with a header, quoted cells over several lines and " | " lists', () => {
    const csv = [
      'Question,Answer,Supporting document',
      '"Who wrote it, first?",Ada Lovelace | Ada,p0 | p4',
      '',
      '"A question',
      'over two lines?",yes,',
      'Where?,,p3',
    ].join('\n');
    expect(() => parseQaSet('mine.csv', csv)).toThrow('QA set mine.csv line 6: empty "answer"');
    const set = parseQaSet('mine.csv', csv.split('\n').slice(0, 5).join('\n'));
    expect(set.items).toEqual([
      {
        id: 'q1',
        question: 'Who wrote it, first?',
        answers: ['Ada Lovelace', 'Ada'],
        supporting: ['p0', 'p4'],
        line: 2,
      },
      { id: 'q2', question: 'A question\nover two lines?', answers: ['yes'], supporting: [], line: 4 },
    ]);
    expect(() => parseQaSet('x.csv', 'q,a\nwhat,that')).toThrow(
      'QA set x.csv line 1: the header must name the columns "question" and "answer"',
    );
  });
});
