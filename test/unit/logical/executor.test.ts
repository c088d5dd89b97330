// The executor over the hand-made fixture KG (fixtureKg.ts): sort, count, date differences, comparisons, multi-hop
// retrieval through a bound variable, matching tiers, and a subject missing from the KG read from a passage by the
// model (the scripted loopback server). Expected values are worked out by hand from the fixture texts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmClient } from '../../../src/core/llm/client.ts';
import { executePlan } from '../../../src/core/logical/executor.ts';
import type { Execution, KgView, Plan } from '../../../src/core/logical/index.ts';
import { validatePlan } from '../../../src/core/logical/schema.ts';
import { show } from '../../../src/core/logical/values.ts';
import { kagResponder } from '../../support/scriptedKag.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { fixtureKg, fixturePassages } from './fixtureKg.ts';

let kg: KgView;
let server: ScriptedLlmServer;
let llm: LlmClient;

beforeAll(async () => {
  kg = await fixtureKg();
  server = await startScriptedLlmServer({ responders: [kagResponder()] });
  llm = scriptedClient(server);
});
afterAll(() => server.close());

function plan(steps: unknown[]): Plan {
  const v = validatePlan({ steps });
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.value;
}

async function run(steps: unknown[], withLlm = false): Promise<Execution> {
  return executePlan(plan(steps), {
    kg,
    passages: fixturePassages,
    llm: withLlm ? llm : undefined,
    question: 'fixture question',
  });
}

const out = (e: Execution, i = 0): string[] => e.outputs[i].values.map(show);

describe('executor over the fixture KG', () => {
  it('sorts films by release date (first and last)', async () => {
    const steps = (direction: string) => [
      {
        step: 'retrieval',
        s: { var: 'f', type: 'film', names: ['Alpha', 'Beta', 'Gamma'] },
        p: 'release date',
        o: { var: 'd', type: 'date' },
      },
      { step: 'sort', var: 'f', by: 'd', direction, as: 'pick' },
      { step: 'output', vars: ['pick'] },
    ];
    // Beta 1990-06-05 < Alpha 1994-03-12 < Gamma 2001-01-01.
    const first = await run(steps('min'));
    expect(out(first)).toEqual(['Beta']);
    expect(first.exact).toBe(true);
    expect(first.steps[0].bindings.d).toEqual(['1994-03-12', '1990-06-05', '2001-01-01']);
    // Each date's triple names the chunk that states it.
    expect(first.steps[0].evidence).toContainEqual({
      kind: 'triple',
      s: 'Beta',
      p: 'release date',
      o: '1990-06-05',
      chunkIds: ['films#0000#0001'],
    });
    expect(out(await run(steps('max')))).toEqual(['Gamma']);
  });

  it('counts the films of a director (retrieval backward over the relation)', async () => {
    const e = await run([
      { step: 'retrieval', s: { var: 'f', type: 'film' }, p: 'directed by', o: { names: ['Ann Lee'] } },
      { step: 'math', expr: 'count(f)', as: 'n' },
      { step: 'output', vars: ['n'] },
    ]);
    // Alpha and Gamma are directed by Ann Lee; Beta by Bo Kim.
    expect(e.steps[0].bindings.f?.sort()).toEqual(['Alpha', 'Gamma']);
    expect(out(e)).toEqual(['2']);
  });

  it('finds subjects by an attribute value (retrieval backward over attributes)', async () => {
    const e = await run([
      { step: 'retrieval', s: { var: 'f', type: 'film' }, p: 'release date', o: { names: ['June 5, 1990'] } },
      { step: 'output', vars: ['f'] },
    ]);
    // "June 5, 1990" is 1990-06-05: Beta's release date.
    expect(out(e)).toEqual(['Beta']);
    expect(e.steps[0].evidence).toEqual([
      { kind: 'triple', s: 'Beta', p: 'release date', o: '1990-06-05', chunkIds: ['films#0000#0001'] },
    ]);
  });

  it('sums and orders populations (numbers with their unit)', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'c', names: ['Springfield', 'Shelbyville'] },
        p: 'population',
        o: { var: 'n', type: 'number' },
      },
      { step: 'math', expr: 'sum(n)', as: 'total' },
      { step: 'sort', var: 'c', by: 'n', direction: 'max', as: 'largest' },
      { step: 'output', vars: ['total', 'largest'] },
    ]);
    // 1,200,000 + 800,000 inhabitants; Springfield is the larger.
    expect(out(e, 0)).toEqual(['2000000 inhabitants']);
    expect(out(e, 1)).toEqual(['Springfield']);
  });

  it('computes the difference of two dates in days and whole years', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'a', names: ['Alpha'] },
        p: 'release date',
        o: { var: 'da', type: 'date' },
      },
      {
        step: 'retrieval',
        s: { var: 'b', names: ['Beta'] },
        p: 'release date',
        o: { var: 'db', type: 'date' },
      },
      { step: 'math', expr: 'da - db', as: 'days' },
      { step: 'math', expr: 'years(db, da)', as: 'years' },
      { step: 'output', vars: ['days', 'years'] },
    ]);
    // 1990-06-05 → 1993-06-05 is 3·365 + 1 (29 Feb 1992) = 1096 days; → 1994-03-12 another
    // 30+31+31+30+31+30+31+31+28+7 = 280: 1376 days. Whole years: 3 (the 4th anniversary is 1994-06-05).
    expect(out(e, 0)).toEqual(['1376 days']);
    expect(out(e, 1)).toEqual(['3 years']);
  });

  it('compares two birth dates in code (deduce less, math <) without the model', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'a', names: ['Ann Lee'] },
        p: 'date of birth',
        o: { var: 'ab', type: 'date' },
      },
      {
        step: 'retrieval',
        s: { var: 'b', names: ['Bo Kim'] },
        p: 'birth date',
        o: { var: 'bb', type: 'date' },
      },
      { step: 'math', expr: 'ab < bb', as: 'annOlder' },
      { step: 'deduce', op: 'greater', A: { var: 'ab' }, B: { var: 'bb' }, as: 'annBornLater' },
      { step: 'output', vars: ['annOlder', 'annBornLater'] },
    ]);
    // Ann Lee 1950-04-14, Bo Kim 1942-10-20 ("October 20, 1942", key "birth_date"): Ann was born later.
    expect(e.steps[1].bindings.bb).toEqual(['1942-10-20']);
    expect(out(e, 0)).toEqual(['no']);
    expect(out(e, 1)).toEqual(['yes']);
    expect(e.usage.calls).toBe(0);
  });

  it('follows a bound variable over two and three hops', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'f', names: ['Alpha', 'Beta'] },
        p: 'director',
        o: { var: 'p', type: 'person' },
      },
      { step: 'retrieval', s: { var: 'p' }, p: 'birth date', o: { var: 'b', type: 'date' } },
      { step: 'sort', var: 'f', by: 'b', direction: 'min', as: 'olderDirector' },
      { step: 'output', vars: ['olderDirector'] },
    ]);
    // Alpha → Ann Lee (1950), Beta → Bo Kim (1942): Beta has the older director.
    expect(e.steps[0].bindings.p).toEqual(['Ann Lee', 'Bo Kim']);
    expect(out(e)).toEqual(['Beta']);
    const three = await run([
      { step: 'retrieval', s: { var: 'f', names: ['alpha'] }, p: 'directed by', o: { var: 'p' } },
      { step: 'retrieval', s: { var: 'p' }, p: 'born in', o: { var: 'place' } },
      { step: 'retrieval', s: { var: 'place' }, p: 'population', o: { var: 'n', type: 'number' } },
      { step: 'output', vars: ['n'] },
    ]);
    // Alpha → Ann Lee → Springfield → 1,200,000 inhabitants.
    expect(out(three)).toEqual(['1200000 inhabitants']);
  });

  it('matches a misspelt name fuzzily and filters by a constraint', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'x', names: ['Bo Kimm'] },
        p: 'birth date',
        o: { var: 'b', type: 'date' },
      },
      {
        step: 'retrieval',
        s: { var: 'f', names: ['Alpha', 'Beta', 'Gamma'] },
        p: 'release date',
        o: { var: 'd', constraint: { op: '>', value: '1993' } },
      },
      { step: 'output', vars: ['b', 'd'] },
    ]);
    expect(out(e, 0)).toEqual(['1942-10-20']);
    // After 1993-01-01: Alpha (1994) and Gamma (2001).
    expect(out(e, 1)).toEqual(['1994-03-12', '2001-01-01']);
  });

  it('falls back to passages for a film missing from the KG, and the model reads the date there', async () => {
    server.requests.length = 0;
    const e = await run(
      [
        {
          step: 'retrieval',
          s: { var: 'f', names: ['Alpha', 'Delta'] },
          p: 'release date',
          o: { var: 'd', type: 'date' },
        },
        { step: 'sort', var: 'f', by: 'd', direction: 'min', as: 'first' },
        { step: 'output', vars: ['first'] },
      ],
      true,
    );
    // Delta is only in a passage: "Delta is a 1985 film" → 1985 < 1994-03-12.
    expect(e.steps[0].via).toBe('kg+passages');
    expect(e.steps[0].bindings.d).toEqual(['1994-03-12', '1985']);
    expect(e.steps[0].evidence).toContainEqual({
      kind: 'passage',
      chunkId: 'extra#0000#0000',
      text: 'Delta is a 1985 film directed by Cy Moe.',
    });
    expect(out(e)).toEqual(['Delta']);
    expect(e.exact).toBe(false);
    // One reading call, for Delta only; the sub-question is the step rendered for that subject.
    const asked = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(asked).toHaveLength(1);
    expect(asked[0].body?.messages?.[1].content).toContain('Question: What is the release date of Delta?');
  });

  it('does not take another attribute sharing a word for the asked one', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'x', names: ['Ann Lee'] },
        p: 'death date',
        o: { var: 'd', type: 'date' },
      },
      { step: 'output', vars: ['d'] },
    ]);
    // Ann Lee has a birth date only: "death date" shares "date" with it but is another attribute.
    expect(e.steps[0].error).toBe('nothing found for Ann Lee (death date)');
    expect(e.outputs[0].values).toEqual([]);
  });

  it('gives deduce every fact about a variable, those of later steps that read it included', async () => {
    server.requests.length = 0;
    const e = await run(
      [
        { step: 'retrieval', s: { var: 'f', names: ['Alpha'] }, p: 'directed by', o: { var: 'p' } },
        { step: 'retrieval', s: { var: 'p' }, p: 'birth date', o: { var: 'b', type: 'date' } },
        { step: 'deduce', op: 'extraction', A: { var: 'p' }, question: 'Who directed Alpha?', as: 'who' },
        { step: 'output', vars: ['who'] },
      ],
      true,
    );
    expect(e.steps[2].via).toBe('model');
    const prompt = server.requests.at(-1)?.body?.messages?.[1].content ?? '';
    expect(prompt).toContain('(Alpha, directed by, Ann Lee)');
    expect(prompt).toContain('(Ann Lee, birth date, 1950-04-14)');
    // The scripted deduce extracts A's value.
    expect(out(e)).toEqual(['Ann Lee']);
  });

  it('records why a step found nothing, and the next step names the empty variable', async () => {
    const e = await run([
      {
        step: 'retrieval',
        s: { var: 'x', names: ['Nobody Known'] },
        p: 'birth date',
        o: { var: 'b', type: 'date' },
      },
      { step: 'math', expr: 'year(b) + 1', as: 'y' },
      { step: 'output', vars: ['y'] },
    ]);
    expect(e.steps[0].error).toBe('nothing found for Nobody Known (birth date)');
    expect(e.steps[1].error).toBe('variable b has no value (nothing was found)');
    expect(e.outputs[0].values).toEqual([]);
    expect(e.exact).toBe(false);
  });
});
