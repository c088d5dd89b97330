// `cli ask` checks its whole command line before it reads the bundle (a large library's bundle takes tens of
// seconds and GBs to open), takes every mode the Ask view shows plus `default`, and answers a --questions file
// of many questions from one load, each as a lone `ask` of that question would.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeSnapshotBundle } from '../../../src/core/bundle/index.ts';
import { DEFAULT_MODE } from '../../../src/core/retrieval/index.ts';
import { checkArgs, parseQuestions, run as ask } from '../../../src/cli/ask.ts';
import { writeBundleFile } from '../../../src/cli/bundleIo.ts';
import { ASK_MODES } from '../../../src/services/questions/modeRegistry.ts';
import { snapshotOf } from '../bundle/fixtures.ts';

let dir = '';
let good = '';
let missing = '';

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await fn(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-ask-args-'));
  good = join(dir, 'good.bundle');
  missing = join(dir, 'no-such.bundle');
  await writeBundleFile(good, writeSnapshotBundle(snapshotOf(), { appVersion: '0.1.0' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cli ask: arguments are checked before the bundle is read', () => {
  it('refuses a bad mode over a bundle that does not exist: the mode error comes first', async () => {
    const { code, err } = await capture(() => ask([missing, 'a question', '--mode', 'pagerank']));
    expect(code).toBe(2);
    expect(err).toMatch(/unknown mode "pagerank"/);
    expect(err).toContain('default');
    expect(err).not.toMatch(/does not exist|no-such\.bundle/);
  });

  it('refuses a bad budget and a missing questions file before the bundle is read', async () => {
    const budget = await capture(() => ask([missing, 'q', '--budget', 'lots']));
    expect(budget.code).toBe(2);
    expect(budget.err).toMatch(/--budget must be a positive integer, got lots/);
    const file = join(dir, 'absent-questions.txt');
    const questions = await capture(() => ask([missing, '--questions', file]));
    expect(questions.code).toBe(2);
    expect(questions.err).toContain(`the questions file ${file} does not exist`);
    expect(questions.err).not.toContain('no-such.bundle');
  });

  it('takes `default` as the app default mode, and every mode the Ask view lists', async () => {
    const plan = await checkArgs([missing, 'q', '--mode', 'default']);
    expect(plan).toMatchObject({ mode: { name: DEFAULT_MODE }, questions: ['q'] });
    // With default accepted, the only thing wrong is the bundle itself, found when it is read.
    await expect(capture(() => ask([missing, 'q', '--mode', 'default']))).rejects.toThrow(
      /no-such\.bundle does not exist/,
    );
    for (const mode of ASK_MODES) {
      const checked = await checkArgs([
        missing,
        'q',
        '--mode',
        mode,
        '--llm-base-url',
        'http://127.0.0.1:9/v1',
      ]);
      expect(checked, mode).toMatchObject({ mode: { name: mode } });
    }
  });
});

describe('parseQuestions', () => {
  it('reads one question per line, or JSONL with "question"', () => {
    expect(parseQuestions('Who?\n\n  What?  \r\n', 'q.txt')).toEqual(['Who?', 'What?']);
    expect(parseQuestions('{"question":"Who?","id":1}\n{"question":"What?"}\n', 'q.jsonl')).toEqual([
      'Who?',
      'What?',
    ]);
  });

  it('names the file and line of a bad JSONL line, and refuses an empty file', () => {
    expect(() => parseQuestions('{"question":"Who?"}\n{"q":"x"}\n', 'q.jsonl')).toThrow(
      'q.jsonl line 2 has no "question" string',
    );
    expect(() => parseQuestions('{"question":"Who?"}\n{oops\n', 'q.jsonl')).toThrow(
      /q\.jsonl line 2 is not JSON/,
    );
    expect(() => parseQuestions('\n  \n', 'empty.txt')).toThrow('empty.txt holds no question');
  });
});

describe('cli ask --questions', () => {
  it('answers every question of the file from one load, each as a lone ask would', async () => {
    const questions = ['Who married Teutberga?', 'Who was the mother of Lothair II?'];
    const file = join(dir, 'questions.jsonl');
    await writeFile(file, questions.map((question) => JSON.stringify({ question })).join('\n'));
    const many = await capture(() => ask([good, '--questions', file, '--mode', 'bm25', '--json']));
    expect(many.code).toBe(0);
    const lines = many.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { question: string; context: unknown[] });
    expect(lines.map((l) => l.question)).toEqual(questions);
    for (const [i, question] of questions.entries()) {
      const one = await capture(() => ask([good, question, '--mode', 'bm25', '--json']));
      expect(one.code).toBe(0);
      const single = JSON.parse(one.out) as { context: unknown[] };
      expect(single.context.length).toBeGreaterThan(0);
      expect(lines[i].context).toEqual(single.context);
    }
  });

  it('prints each question before its evidence without --json', async () => {
    const file = join(dir, 'questions.txt');
    await writeFile(file, 'Who married Teutberga?\nWho was the mother of Lothair II?\n');
    const { code, out } = await capture(() => ask([good, '--questions', file, '--mode', 'bm25']));
    expect(code).toBe(0);
    expect(out).toMatch(/^question 1: Who married Teutberga\?\n {2}1\. /);
    expect(out).toMatch(/\nquestion 2: Who was the mother of Lothair II\?\n {2}1\. /);
  });
});
