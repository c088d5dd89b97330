// `bench` with an LLM endpoint (issue 4 item 6): modes kg and hybrid run over a KG built by the scripted server, and
// every mode gets EM / token F1 of the scripted answer; without an endpoint kg/hybrid are reported as needing one.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../../src/cli/bench.ts';
import { NEEDS_ENDPOINT } from '../../../src/cli/benchLlm.ts';
import {
  NO_ANSWER,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';

let dir = '';
let server: ScriptedLlmServer;
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
  { id: 'q2', question: 'What is the capital of Trinidad?', answers: ['Port of Spain'], supporting: ['p3'] },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-llm-test-'));
  await writeFile(join(dir, 'corpus.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await writeFile(join(dir, 'questions.jsonl'), questions.map((r) => JSON.stringify(r)).join('\n') + '\n');
  server = await startScriptedLlmServer({ answer: scriptedAnswer });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function bench(extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    const code = await run([
      '--corpus',
      join(dir, 'corpus.jsonl'),
      '--questions',
      join(dir, 'questions.jsonl'),
      '--embedder',
      'none',
      '--param',
      'maxDfFraction=1',
      ...extra,
    ]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Answers q1 only when its gold date is in the context; answers q2 with a sentence around the gold span. */
function scriptedAnswer(question: string, context: string): string {
  if (question.includes('Lothair')) return context.includes('20 March 851') ? '20 March 851 [1].' : NO_ANSWER;
  return 'It is Port of Spain [1].';
}

const endpoint = () => ['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model'];
const answerRequests = () =>
  server.requests.filter((r) => r.path === '/v1/chat/completions' && r.extractedText === undefined);

describe('bench with an LLM endpoint', () => {
  it('runs kg and hybrid and scores EM/F1 of every mode at the answer budget', async () => {
    server.reset();
    const out = join(dir, 'with.json');
    const { code, stdout } = await bench([
      ...['--modes', 'ppr,bm25,kg,hybrid', '--budgets', '20,1000', '--kappa', '1', '--json', out],
      ...endpoint(),
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(Object.keys(json)).toEqual(['questions', 'modes', 'answerBudget']);
    expect(json.answerBudget).toBe(3000);
    expect(Object.keys(json.modes)).toEqual(['ppr', 'bm25', 'kg', 'hybrid']);
    for (const r of Object.values(json.modes) as Array<Record<string, unknown>>) {
      expect(Object.keys(r)).toEqual(['cr', 'recall', 'indexSeconds', 'queryMs', 'em', 'f1', 'failed']);
      // No step failed: the failures are counted, as none (issue 23).
      expect(r.failed).toEqual({ questions: 0, reasons: {}, perQuestion: [] });
      for (const x of [r.em, r.f1] as number[]) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
    }
    // κ = 1: every chunk went to extraction once; then one answer per question and mode.
    expect(server.extractionTexts()).toHaveLength(corpus.length);
    expect(answerRequests()).toHaveLength(questions.length * 4);
    // q2's answer "It is Port of Spain" is never exact; its F1 is 2·(3/5)·(3/3)/(3/5+3/3) = 0.75 in every mode.
    // q1 is answered (EM 1, F1 1) only when the context holds p2: so EM 0.5, F1 (1 + 0.75)/2 when it does …
    // bm25 holds p2 too: its "died" meets the question's "die" through their stem (text analyzer version 2).
    expect(json.modes.ppr).toMatchObject({ em: 0.5, f1: 0.875 });
    expect(json.modes.hybrid).toMatchObject({ em: 0.5, f1: 0.875 });
    expect(json.modes.bm25).toMatchObject({ em: 0.5, f1: 0.875 });
    // … and EM 0, F1 (0 + 0.75)/2 when it does not: the KG path matches the entity "Lothair" of p1 only (the
    // scripted extraction takes capitalized runs; "II" is not one).
    expect(json.modes.kg).toMatchObject({ em: 0, f1: 0.375, recall: { '2': 0.75 } });
    expect(json.modes.kg.cr).toEqual({ '20': 0.5, '1000': 0.5 });
    expect(json.modes.hybrid.cr['1000']).toBe(1);
    expect(json.modes.kg.queryMs.p50).toBeGreaterThanOrEqual(0);
    expect(stdout).toMatch(/EM\s+F1/);
    expect(stdout).toMatch(/^kg\s.*\s0\.0\s+37\.5$/m);
  });

  it('answers over a cut of the searched hits when the answer budget is within the budgets', async () => {
    server.reset();
    const out = join(dir, 'cut.json');
    const { code } = await bench([
      ...['--modes', 'ppr', '--budgets', '1000', '--answer-budget', '1000', '--json', out],
      ...endpoint(),
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(json.answerBudget).toBe(1000);
    expect(json.modes.ppr).toMatchObject({ em: 0.5, f1: 0.875 });
    // No KG mode asked for: no extraction call.
    expect(server.extractionTexts()).toHaveLength(0);
    expect(answerRequests()).toHaveLength(2);
  });

  it('without an endpoint, skips kg/hybrid with the reason and still writes the other modes', async () => {
    const out = join(dir, 'without.json');
    const { code, stderr, stdout } = await bench([
      ...['--modes', 'ppr,kg,hybrid', '--budgets', '1000', '--json', out],
    ]);
    expect(code).toBe(0);
    expect(stderr).toContain(`skipping kg, hybrid, EM/F1: ${NEEDS_ENDPOINT}`);
    expect(stdout).toContain('EM/F1 not computed: no LLM endpoint');
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(Object.keys(json.modes)).toEqual(['ppr']);
    expect(Object.keys(json.modes.ppr)).toEqual(['cr', 'recall', 'indexSeconds', 'queryMs']);
    expect(json.skipped).toEqual({ kg: NEEDS_ENDPOINT, hybrid: NEEDS_ENDPOINT });
    expect(json.modes.ppr.cr['1000']).toBe(1);
  });

  it('refuses a run with only KG modes and no endpoint, a bad κ and a bad answer budget', async () => {
    expect((await bench(['--modes', 'kg'])).code).toBe(2);
    await expect(bench(['--modes', 'ppr', '--kappa', '1.5'])).rejects.toThrow(/--kappa must be a fraction/);
    await expect(bench(['--modes', 'ppr', '--answer-budget', '0'])).rejects.toThrow(
      /--answer-budget must be positive integers/,
    );
    await expect(bench(['--modes', 'ppr', '--llm-base-url', server.baseUrl])).rejects.toThrow(
      /model name is empty/,
    );
  });
});

describe('bench and the LLM key', () => {
  it('refuses --llm-key on the command line and sends nothing', async () => {
    server.reset();
    const { code, stderr } = await bench([...endpoint(), '--modes', 'bm25', '--llm-key', 'sk-typed-in']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--llm-key is no longer accepted/);
    expect(stderr).toMatch(/CONCEPTRAG_LLM_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the key from --llm-key-file to the LLM endpoint', async () => {
    server.reset();
    const file = join(dir, 'llm.key');
    await writeFile(file, 'sk-from-file\n');
    const { code } = await bench([...endpoint(), '--modes', 'bm25', '--limit', '1', '--llm-key-file', file]);
    expect(code).toBe(0);
    const auth = server.requests.map((r) => r.authorization);
    expect(auth.length).toBeGreaterThan(0);
    expect(new Set(auth)).toEqual(new Set(['Bearer sk-from-file']));
  });
});
