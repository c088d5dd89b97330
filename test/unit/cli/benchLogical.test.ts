// `bench --modes logical` with an endpoint, end to end against the scripted server on loopback: the first 20
// comparison questions of the shared 2WikiMultihopQA sample (test/fixtures/2wiki-comparison-20: their supporting
// paragraphs and 20 distractors), the KG built once over every chunk with the scripted extraction (dates as
// attributes), every question planned, executed and answered through askLibrary, and the JSON with EM, F1 and
// calls per question. The scripted planner and reader are patterns, not a model: the numbers say the pipeline runs
// and scores, not how well a real model would do.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/bench.ts';
import { PLAN_TAG } from '../../../src/core/logical/prompts.ts';
import { captureCli } from '../../support/captureCli.ts';
import { kagResponder } from '../../support/scriptedKag.ts';
import {
  NO_ANSWER,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/2wiki-comparison-20');
let dir = '';
let server: ScriptedLlmServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-logical-'));
  // The written answer repeats the solver's established answer (a fact in the prompt), citing passage [1].
  server = await startScriptedLlmServer({
    responders: [kagResponder()],
    answer: (_question, context) => {
      const solved = /Answer established by the logical-form solver: (.+)/.exec(context)?.[1]?.trim();
      return solved ? `${solved} [1]` : NO_ANSWER;
    },
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bench --modes logical', () => {
  it('runs 20 2Wiki comparison questions through the solver and reports EM, F1 and calls per question', async () => {
    const out = join(dir, 'logical.json');
    const { code, err: stderr } = await captureCli(() =>
      run([
        ...['--corpus', join(FIXTURE, 'corpus.jsonl'), '--questions', join(FIXTURE, 'questions.jsonl')],
        ...['--embedder', 'none', '--modes', 'logical', '--budgets', '3000', '--kappa', '1'],
        ...['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model', '--json', out],
      ]),
    );
    expect(code, stderr).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expect(json.questions).toBe(20);
    const r = json.modes.logical;
    expect(r).toHaveProperty('em');
    expect(r).toHaveProperty('f1');
    expect(r.perQuestion.answerCalls).toBe(1);
    expect(r.perQuestion.calls).toBe(r.perQuestion.modeCalls + 1);
    // Every question is planned once (1 call); KG-only plans stop there, the others read passages and reflect.
    const plans = server.requests.filter((q) => q.body?.messages?.[0]?.content.startsWith(PLAN_TAG));
    expect(plans.length).toBeGreaterThanOrEqual(20);
    expect(r.perQuestion.modeCalls).toBeGreaterThanOrEqual(1);
    // The answers come out of the solver: wrong or missing ones score 0, so EM is a count of computed answers
    // that match the gold (at least the release-date comparisons the scripted extraction dates, e.g. Phoolwari
    // 1946 before Aas Ka Panchhi 1961).
    expect(r.em).toBeGreaterThan(0);
    expect(r.f1).toBeGreaterThanOrEqual(r.em);
    process.stderr.write(
      `bench logical (scripted): em ${r.em} f1 ${r.f1} calls/question ${r.perQuestion.calls} ` +
        `(mode ${r.perQuestion.modeCalls}) tokens in ${r.perQuestion.inputTokens}\n`,
    );
  });
});
