import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerQuestion } from '../../../src/core/answer/answer.ts';
import { isNoAnswer, parseCitations } from '../../../src/core/answer/citations.ts';
import { buildAnswerMessages, NO_ANSWER } from '../../../src/core/answer/prompt.ts';
import { LlmClient } from '../../../src/core/llm/client.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const context = [
  { chunkId: 'd1#0000#0000', title: 'Paris', text: 'Paris is the capital of France. It lies on the Seine.' },
  { chunkId: 'd2#0000#0000', text: 'The city has about two million inhabitants. Many tourists visit.' },
  { chunkId: 'd3#0000#0000', text: 'Lyon is another city.' },
];

describe('buildAnswerMessages', () => {
  it('numbers the passages, adds titles and the question', () => {
    const [system, user] = buildAnswerMessages('Capital of France?', context.slice(0, 2), [
      'paris — france: capital',
    ]);
    expect(system.content).toContain(NO_ANSWER);
    expect(user.content).toBe(
      'Context:\n[1] (Paris)\nParis is the capital of France. It lies on the Seine.\n\n' +
        '[2]\nThe city has about two million inhabitants. Many tourists visit.\n\n' +
        'Knowledge-graph facts (cite the passages, not these):\n- paris — france: capital\n\nQuestion: Capital of France?',
    );
  });

  it("names an excerpt's section heading after its document title", () => {
    const [, user] = buildAnswerMessages('Why no annotations?', [
      {
        chunkId: 'b#0003#0000',
        title: 'Validating References',
        heading: 'Lifetime Elision',
        text: 'The rules…',
      },
      { chunkId: 'c#0000#0000', heading: 'Only a heading', text: 'Text.' },
    ]);
    expect(user.content).toContain('[1] (Validating References › Lifetime Elision)\nThe rules…');
    expect(user.content).toContain('[2] (Only a heading)\nText.');
  });
});

describe('parseCitations', () => {
  it('maps [n], [n][m], [n, m] and ranges to chunks and picks the supporting sentence', () => {
    const answer = 'Paris is the capital [1]. It has two million inhabitants [2][3]. Also [1, 2]. Bad [9].';
    const c = parseCitations(answer, context);
    expect(c.map((x) => [x.n, x.chunkId])).toEqual([
      [1, 'd1#0000#0000'],
      [2, 'd2#0000#0000'],
      [3, 'd3#0000#0000'],
      [1, 'd1#0000#0000'],
      [2, 'd2#0000#0000'],
    ]);
    expect(c[0].sentence).toEqual({ start: 0, end: 31, text: 'Paris is the capital of France.' });
    expect(c[1].sentence!.text).toBe('The city has about two million inhabitants.');
    expect(answer.slice(c[0].markerStart, c[0].markerEnd)).toBe('[1]');
    expect(parseCitations('see [1-2]', context).map((x) => x.n)).toEqual([1, 2]);
  });
  it('a marker after the claim’s full stop, or after another marker, cites the claim’s sentence', () => {
    // The second sentence of each chunk is the claim: a first-sentence pick would be wrong in every case.
    const lies = 'Paris lies on the Seine';
    for (const answer of [`${lies}. [1]`, `${lies}.[1]`, `${lies} [2][1].`, `${lies}. [2] [1]`]) {
      const cited = parseCitations(answer, context).find((c) => c.n === 1);
      expect(cited?.sentence?.text, answer).toBe('It lies on the Seine.');
    }
    const many = parseCitations('Many tourists visit the city. [2]', context)[0];
    expect(many.sentence?.text).toBe('Many tourists visit.');
  });
  it('recognizes the no-answer reply', () => {
    expect(isNoAnswer(NO_ANSWER)).toBe(true);
    expect(isNoAnswer('the documents do not contain the answer')).toBe(true);
    expect(isNoAnswer('Paris [1]')).toBe(false);
  });
});

describe('answerQuestion against the scripted server', () => {
  let server: ScriptedLlmServer;
  beforeAll(async () => {
    server = await startScriptedLlmServer();
  });
  afterAll(() => server.close());
  const client = () =>
    new LlmClient({
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      priceInPerM: 0,
      priceOutPerM: 0,
      concurrency: 1,
    });

  it('streams the answer and returns its citations with the sentence to highlight', async () => {
    const deltas: string[] = [];
    const a = await answerQuestion(client(), 'What is the capital of France?', context, {
      onDelta: (d) => deltas.push(d),
    });
    expect(deltas.join('')).toBe('Paris is the capital of France. [1]');
    expect(a.noAnswer).toBe(false);
    expect(a.citations).toHaveLength(1);
    expect(a.citations[0]).toMatchObject({ n: 1, chunkId: 'd1#0000#0000' });
    expect(a.citations[0].sentence!.text).toBe('Paris is the capital of France.');
    expect(server.requests.at(-1)!.body!.stream).toBe(true);
  });

  it('says so when there is no context, with no citations', async () => {
    const a = await answerQuestion(client(), 'Anything?', []);
    expect(a.text).toBe(NO_ANSWER);
    expect(a.noAnswer).toBe(true);
    expect(a.citations).toEqual([]);
  });
});
