// The CLI bench end to end on a tiny corpus (lexical modes, no embedder): argument handling, metrics and the
// exact --json shape the issue asks for.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expandGrid, run } from '../../../src/cli/bench.ts';
import { loadQuestions } from '../../../src/cli/benchData.ts';

let dir = '';
const corpus = [
  { id: 'p1', title: 'Lothair II', text: 'Lothair II was a king. His mother was Ermengarde of Tours.' },
  { id: 'p2', title: 'Ermengarde of Tours', text: 'Ermengarde of Tours died on 20 March 851.' },
  { id: 'p3', title: 'Port of Spain', text: 'Port of Spain is the capital of Trinidad and Tobago.' },
  { id: 'p4', title: 'Teutberga', text: 'Teutberga was a queen of Lotharingia.' },
];
const questions = [
  {
    id: 'q1',
    question: "When did Lothair II's mother die?",
    answers: ['20 March 851'],
    supporting: ['p1', 'p2'],
  },
  { id: 'q2', question: 'What is the capital of Trinidad?', answers: ['Port of Spain'], supporting: [] },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-test-'));
  await writeFile(join(dir, 'corpus.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await writeFile(join(dir, 'questions.jsonl'), questions.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bench CLI', () => {
  it('writes the issue JSON shape with fractions, recall over labelled questions only', async () => {
    const out = join(dir, 'out.json');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const code = await run([
      '--corpus',
      join(dir, 'corpus.jsonl'),
      '--questions',
      join(dir, 'questions.jsonl'),
      '--modes',
      'ppr,bm25',
      '--budgets',
      '20,1000',
      '--embedder',
      'none',
      '--param',
      'maxDfFraction=1',
      '--json',
      out,
    ]);
    write.mockRestore();
    err.mockRestore();
    expect(code).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(Object.keys(json)).toEqual(['questions', 'modes']);
    expect(json.questions).toBe(2);
    expect(Object.keys(json.modes)).toEqual(['ppr', 'bm25']);
    const ppr = json.modes.ppr;
    expect(Object.keys(ppr)).toEqual(['cr', 'recall', 'indexSeconds', 'queryMs']);
    expect(Object.keys(ppr.cr)).toEqual(['20', '1000']);
    expect(Object.keys(ppr.recall)).toEqual(['2', '5', '10']);
    // The whole corpus fits in 1000 tokens: both answers are in context.
    expect(ppr.cr['1000']).toBe(1);
    // Only q1 is labelled; ppr finds both of its passages in the first two documents.
    expect(ppr.recall['2']).toBe(1);
    // bm25 finds p1 (lothair, ii, mother) and, through the stem "die" of "died" (text analyzer version 2), p2.
    expect(json.modes.bm25.recall['2']).toBe(1);
    expect(ppr.queryMs.p50).toBeGreaterThanOrEqual(0);
  });

  it('refuses missing arguments and dense without an embedder', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await run(['--corpus', join(dir, 'corpus.jsonl')])).toBe(2);
    await expect(
      run([
        '--corpus',
        join(dir, 'corpus.jsonl'),
        '--questions',
        join(dir, 'questions.jsonl'),
        '--modes',
        'dense',
        '--embedder',
        'none',
      ]),
    ).rejects.toThrow(/dense needs an embedder/);
    err.mockRestore();
  });

  it('expands parameter grids and validates question files', async () => {
    expect(expandGrid(['thetaSem=0.3,0.5', 'phrases=true,false'])).toEqual([
      { thetaSem: 0.3, phrases: true },
      { thetaSem: 0.3, phrases: false },
      { thetaSem: 0.5, phrases: true },
      { thetaSem: 0.5, phrases: false },
    ]);
    expect(() => expandGrid(['nope=1'])).toThrow(/unknown parameter/);
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, '{"question": "x"}\n');
    await expect(loadQuestions(bad)).rejects.toThrow(/line 1: no "answers"/);
    await writeFile(bad, 'not json\n');
    await expect(loadQuestions(bad)).rejects.toThrow(/line 1: not JSON/);
  });
});
