// One bad reply fails its question, not the run (issue 23, item 5): `bench --modes logical` against the scripted
// server on loopback, whose planner answers the first question with a malformed plan every time (the first reply
// and its repair). Before, the whole run stopped with "cli: logical: plan: malformed output twice: …". Now that
// question is scored as failed (found nothing, answered wrong) with its reason, the others are planned, solved and
// answered, and the JSON counts the failures by reason and names each failed question.
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
const FIRST = 'Which film was released first, Aas Ka Panchhi or Phoolwari?';
let dir = '';
let server: ScriptedLlmServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-failures-'));
  server = await startScriptedLlmServer({
    responders: [
      kagResponder({
        // A small model's reply: a step with no function, twice.
        plan: (question) => (question === FIRST ? { steps: [{ step: null }] } : undefined),
      }),
    ],
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

describe('bench: a failed LLM step fails its question, not the run', () => {
  it('scores the question with a malformed plan as failed, counts its reason and goes on', async () => {
    const out = join(dir, 'logical.json');
    const { code, err } = await captureCli(() =>
      run([
        ...['--corpus', join(FIXTURE, 'corpus.jsonl'), '--questions', join(FIXTURE, 'questions.jsonl')],
        ...['--embedder', 'none', '--modes', 'logical', '--budgets', '3000', '--kappa', '1', '--limit', '5'],
        ...['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model', '--json', out],
      ]),
    );
    expect(code, err).toBe(0);
    const r = JSON.parse(await readFile(out, 'utf8')).modes.logical;
    expect(r.failed.questions).toBe(1);
    expect(r.failed.reasons).toEqual({ 'logical: plan: malformed output twice': 1 });
    expect(r.failed.perQuestion).toHaveLength(1);
    expect(r.failed.perQuestion[0].id).toBe('a80d84e7096d11ebbdb0ac1f6bf848b6');
    expect(r.failed.perQuestion[0].reason).toMatch(/^logical: plan: malformed output twice: /);
    expect(err).toMatch(
      /bench: logical: 1 of 5 questions failed \(1× logical: plan: malformed output twice\)/,
    );
    // The first question's plan was asked for twice (reply and repair); the four others were planned too.
    const plans = server.requests.filter((q) => q.body?.messages?.[0]?.content.startsWith(PLAN_TAG));
    const firstPlans = plans.filter((q) => q.body?.messages?.some((m) => m.content.includes(FIRST)));
    expect(firstPlans).toHaveLength(2);
    expect(plans.length).toBeGreaterThanOrEqual(2 + 4);
    // The others were answered: EM over the 5 counts the failed one as wrong.
    expect(r.em).toBeGreaterThan(0);
  }, 120_000);
});
