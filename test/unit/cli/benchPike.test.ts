// `bench --modes atomic,decompose` with an endpoint, end to end against the scripted server on loopback: a 20-question
// set, the atomic layer atomized once per run (every core chunk once), both modes answered through askLibrary, and
// the JSON with EM, F1 and calls per question for each.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/bench.ts';
import { captureCli } from '../../support/captureCli.ts';
import {
  NO_ANSWER,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../support/scriptedPike.ts';

const PEOPLE = [
  ['Ada Quill', 'Marrowby', 'Westland'],
  ['Bram Oster', 'Kettlefield', 'Northmark'],
  ['Cora Vale', 'Dunmere', 'Eastreach'],
  ['Dov Pell', 'Harrowgate', 'Southholm'],
  ['Elin Rusk', 'Ambervale', 'Highmoor'],
  ['Fen Targo', 'Brightwater', 'Lowfen'],
  ['Gila Morrow', 'Copperton', 'Greywater'],
  ['Hal Senn', 'Ironbridge', 'Redcliff'],
  ['Ilsa Crane', 'Juniper Hollow', 'Stonereach'],
  ['Joss Ebbing', 'Larkspur', 'Fairhaven'],
];
const corpus = PEOPLE.flatMap(([name, city, country], i) => [
  { id: `b${i}`, title: name, text: `${name} was born in ${city}.` },
  { id: `c${i}`, title: city, text: `${city} is a town in ${country}.` },
]);
// 20 questions: where each was born (one hop) and in which country (two hops).
const questions = PEOPLE.flatMap(([name, city, country], i) => [
  { id: `q${i}a`, question: `Where was ${name} born?`, answers: [city], supporting: [`b${i}`] },
  {
    id: `q${i}b`,
    question: `Which country was ${name} born in?`,
    answers: [country],
    supporting: [`b${i}`, `c${i}`],
  },
]);

let dir = '';
let server: ScriptedLlmServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-pike-'));
  await writeFile(join(dir, 'corpus.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await writeFile(join(dir, 'questions.jsonl'), questions.map((r) => JSON.stringify(r)).join('\n') + '\n');
  // Answers with the gold span when the context holds it (so EM follows the context), else "no answer".
  server = await startScriptedLlmServer({
    responders: [scriptedPike()],
    answer: (question, context) => {
      const q = questions.find((x) => x.question === question);
      const gold = q?.answers[0];
      return gold && context.includes(gold) ? `${gold} [1].` : NO_ANSWER;
    },
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bench --modes atomic,decompose', () => {
  it('runs both modes over a 20-question set and reports EM, F1 and calls per question', async () => {
    const out = join(dir, 'pike.json');
    const { code, err: stderr } = await captureCli(() =>
      run([
        ...['--corpus', join(dir, 'corpus.jsonl'), '--questions', join(dir, 'questions.jsonl')],
        ...['--embedder', 'none', '--modes', 'atomic,decompose', '--budgets', '3000', '--kappa', '1'],
        ...['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model', '--json', out],
      ]),
    );
    expect(code, stderr).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(json.questions).toBe(20);
    for (const mode of ['atomic', 'decompose']) {
      const r = json.modes[mode];
      expect(Object.keys(r)).toEqual([
        'cr',
        'recall',
        'indexSeconds',
        'queryMs',
        'em',
        'f1',
        'failed',
        'perQuestion',
      ]);
      // No step failed (issue 23 counts failures per mode).
      expect(r.failed).toEqual({ questions: 0, reasons: {}, perQuestion: [] });
      // The scripted answer is the gold span exactly when the context holds it: EM and F1 equal the recall of the
      // answer context (the budgets and the answer budget are both 3000).
      expect(r.em).toBe(r.cr['3000']);
      expect(r.f1).toBe(r.cr['3000']);
      expect(r.perQuestion.answerCalls).toBe(1);
      expect(r.perQuestion.calls).toBe(r.perQuestion.modeCalls + 1);
      expect(r.perQuestion.inputTokens).toBeGreaterThan(0);
    }
    // atomic calls no model at question time; decompose proposes and selects (2 to 2·N calls per question).
    expect(json.modes.atomic.perQuestion.modeCalls).toBe(0);
    expect(json.modes.decompose.perQuestion.modeCalls).toBeGreaterThanOrEqual(2);
    expect(json.modes.decompose.perQuestion.modeCalls).toBeLessThanOrEqual(10);
    // "Where was Ada Quill born?": the one-hop answers are in the chunk the question's own words reach.
    expect(json.modes.atomic.cr['3000']).toBeGreaterThanOrEqual(0.5);
    // Atomized once per run for both modes: every one of the 20 chunks once.
    const atomizing = server.requests.filter((r) =>
      r.body?.messages?.[0]?.content.includes('You write atomic questions'),
    );
    expect(atomizing).toHaveLength(20);
    expect(new Set(atomizing.map((r) => r.extractedText)).size).toBe(20);
    expect(stderr).toMatch(/atomic layer over 20 core chunks \(κ 1\): 20 atomized, 0 failed, 20 questions/);
  });
});
