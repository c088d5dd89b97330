// The planner and the reflection loop against the scripted loopback server: a plan with an unbound variable or an
// unknown function is sent back once with the problem spelled out, then the run fails with the reason; reflection
// stops after R rounds or when the model says solved; an exact plan needs no reflection; cancelling stops the run.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmClient } from '../../../src/core/llm/client.ts';
import { solve, type KgView, type SolverTrace } from '../../../src/core/logical/index.ts';
import { PLAN_TAG, REFLECT_TAG } from '../../../src/core/logical/prompts.ts';
import { LOGICAL_FUNCTIONS, describeLanguage, validatePlan } from '../../../src/core/logical/schema.ts';
import { kagResponder, type KagScript } from '../../support/scriptedKag.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { fixtureKg, fixturePassages } from './fixtureKg.ts';

let kg: KgView;
let server: ScriptedLlmServer;
let llm: LlmClient;
let script: KagScript = {};

beforeAll(async () => {
  kg = await fixtureKg();
  // The script is swapped per test; the responder reads it at request time.
  server = await startScriptedLlmServer({
    responders: [
      kagResponder({
        plan: (q, f, m) => script.plan?.(q, f, m),
        reflect: (q, mem, r, m) => script.reflect?.(q, mem, r, m),
      }),
    ],
  });
  llm = scriptedClient(server);
});
afterAll(() => server.close());
beforeEach(() => {
  script = {};
  server.requests.length = 0;
});

const chats = (tag: string) =>
  server.requests.filter((r) => r.body?.messages?.[0]?.content.startsWith(tag)).map((r) => r.body!.messages!);

function run(question: string, maxRounds = 3, signal?: AbortSignal, trace: SolverTrace[] = []) {
  return solve(question, {
    kg,
    passages: fixturePassages,
    llm,
    maxRounds,
    signal,
    trace: (e) => trace.push(e),
  });
}

const UNBOUND = {
  steps: [
    {
      step: 'retrieval',
      s: { var: 'f', names: ['Alpha'] },
      p: 'release date',
      o: { var: 'd', type: 'date' },
    },
    { step: 'math', expr: 'year(x) - 1', as: 'y' },
    { step: 'output', vars: ['y'] },
  ],
};
const UNKNOWN_FUNCTION = {
  steps: [
    { step: 'lookup', s: 'Alpha' },
    { step: 'output', vars: ['a'] },
  ],
};
const FIRST_FILM = {
  steps: [
    {
      step: 'retrieval',
      s: { var: 'f', names: ['Alpha', 'Beta'] },
      p: 'release date',
      o: { var: 'd', type: 'date' },
    },
    { step: 'sort', var: 'f', by: 'd', direction: 'min', as: 'first' },
    { step: 'output', vars: ['first'] },
  ],
};
const NOTHING_IN_KG = {
  steps: [
    { step: 'retrieval', s: { var: 'x', names: ['Zeta'] }, p: 'release date', o: { var: 'd', type: 'date' } },
    { step: 'output', vars: ['d'] },
  ],
};

describe('the schema', () => {
  it('describes every function and field the validator accepts, from the same table', () => {
    const text = describeLanguage();
    for (const [name, spec] of Object.entries(LOGICAL_FUNCTIONS)) {
      expect(text).toContain(`{"step": "${name}"`);
      for (const field of Object.keys(spec.fields)) expect(text).toContain(`"${field}"`);
    }
  });

  it('names the step and field of each problem, in order', () => {
    const v = validatePlan({
      steps: [
        { step: 'sort', var: 'f', by: 'd', direction: 'up', as: 'x' },
        { step: 'deduce', op: 'guess', A: { var: 'x' }, as: 'y' },
      ],
    });
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.errors).toEqual([
        'steps[0] (sort).var: variable f is not bound by an earlier step',
        'steps[0] (sort).by: variable d is not bound by an earlier step',
        'steps[0] (sort).direction must be "min" or "max" (got "up")',
        'steps[1] (deduce).op must be one of entailment, greater, less, equal, choice, extraction (got "guess")',
        'the plan must end with an output step',
      ]);
    }
  });
});

describe('planning with one repair', () => {
  it('sends an unbound variable back once, then fails with the reason', async () => {
    script.plan = () => UNBOUND;
    const err = await run('When was Alpha released, minus one?').catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      'logical: plan: malformed output twice: steps[1] (math).expr: variable x is not bound by an earlier step',
    );
    const plans = chats(PLAN_TAG);
    expect(plans).toHaveLength(2);
    expect(plans[1].at(-1)!.content).toContain(
      'steps[1] (math).expr: variable x is not bound by an earlier step',
    );
  });

  it('sends an unknown function back once, then fails with the reason', async () => {
    script.plan = () => UNKNOWN_FUNCTION;
    await expect(run('Which film came out first?')).rejects.toThrow(
      'steps[0]: unknown function "lookup" (known: retrieval, sort, math, deduce, output)',
    );
    expect(chats(PLAN_TAG)).toHaveLength(2);
  });

  it('runs the repaired plan when the second reply is valid', async () => {
    script.plan = (_q, _f, messages) => (messages.length > 2 ? FIRST_FILM : UNKNOWN_FUNCTION);
    const trace: SolverTrace[] = [];
    const s = await run('Which film came out first, Alpha or Beta?', 3, undefined, trace);
    // Beta 1990-06-05 before Alpha 1994-03-12; from the KG and code alone, so no reflection call.
    expect(s.answer).toBe('Beta');
    expect(s.stop).toBe('exact');
    expect(chats(PLAN_TAG)).toHaveLength(2);
    expect(chats(REFLECT_TAG)).toHaveLength(0);
    expect(s.usage.calls).toBe(2);
    const planEvent = trace.find((e) => e.kind === 'plan')!;
    expect(planEvent.usage?.calls).toBe(2);
    expect(planEvent.detail).toContain('1. retrieval(s=f[Alpha | Beta], p=release date, o=d:date)');
    expect(trace.filter((e) => e.kind === 'step').map((e) => e.title)).toEqual([
      'Step 1 (retrieval, kg)',
      'Step 2 (sort, code)',
      'Step 3 (output, code)',
    ]);
  });
});

describe('reflection', () => {
  it('stops after R rounds when the model never says solved, planning its follow-ups each round', async () => {
    script.plan = () => NOTHING_IN_KG;
    script.reflect = (_q, _m, round) => ({ solved: false, answer: '', followUps: [`follow-up ${round}`] });
    const trace: SolverTrace[] = [];
    const s = await run('When was Zeta released?', 2, undefined, trace);
    expect(s.solved).toBe(false);
    expect(s.stop).toBe('max-rounds');
    expect(s.rounds.map((r) => r.questions)).toEqual([['When was Zeta released?'], ['follow-up 1']]);
    expect(chats(PLAN_TAG)).toHaveLength(2);
    expect(chats(REFLECT_TAG)).toHaveLength(2);
    // Round 2's plan is asked for the follow-up, with round 1 in the memory.
    const second = chats(PLAN_TAG)[1][1].content;
    expect(second).toContain('Plan these follow-up questions:\n- follow-up 1');
    expect(second).toContain('Already known:\nRound 1: When was Zeta released?');
    expect(trace.at(-1)).toMatchObject({ kind: 'stop', title: 'Stopped after 2 rounds without a solution' });
  });

  it('stops as soon as the model says solved', async () => {
    script.plan = () => NOTHING_IN_KG;
    script.reflect = () => ({ solved: true, answer: 'unknown to the library', followUps: [] });
    const s = await run('When was Zeta released?', 3);
    expect(s.stop).toBe('solved');
    expect(s.answer).toBe('unknown to the library');
    expect(chats(PLAN_TAG)).toHaveLength(1);
    expect(chats(REFLECT_TAG)).toHaveLength(1);
    expect(s.facts[0]).toBe('Answer established by the logical-form solver: unknown to the library');
  });

  it('stops when cancelled, with the abort as the error', async () => {
    script.plan = () => NOTHING_IN_KG;
    script.reflect = () => ({ solved: false, answer: '', followUps: ['again'] });
    const controller = new AbortController();
    const trace: SolverTrace[] = [];
    const running = solve('When was Zeta released?', {
      kg,
      passages: fixturePassages,
      llm,
      maxRounds: 3,
      signal: controller.signal,
      trace: (e) => {
        trace.push(e);
        if (e.kind === 'reflect') controller.abort();
      },
    });
    await expect(running).rejects.toThrow(/abort/i);
    expect(chats(PLAN_TAG)).toHaveLength(1);
  });
});
