// The PIKE-RAG modes over a small library, against the scripted server on loopback: decompose stops after N
// rounds, early when the model says the context is sufficient, when no candidate passes δ, when a step's reply is
// malformed twice (with the reason in the trace), and when cancelled; it searches chunks where there is no atomic
// layer. `atomic` merges ppr with the chunks reached through atomic questions and says which question led there.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AtomicIndex } from '../../../../src/core/atomic/index.ts';
import { KgIndex } from '../../../../src/core/kg/index.ts';
import type { TraceEvent } from '../../../../src/core/llm/index.ts';
import { askLibrary } from '../../../support/askOver.ts';
import type { QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';
import type { AskRequest } from '../../../../src/services/questions/queryProtocol.ts';
import { libraryOf, LOTHAIR_PASSAGES, preparePassages } from '../../../support/passages.ts';
import { scriptedClient } from '../../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import {
  scriptedAtomicQuestions,
  scriptedPike,
  type ScriptedPikeOptions,
} from '../../../support/scriptedPike.ts';

const QUESTION = 'When did the mother of Lothair II die?';

let server: ScriptedLlmServer;
let library: QuestionLibrary;
let atomic: AtomicIndex;
/** Chunk id → the passage id it came from. */
const passageOf = new Map<string, string>();
let pike: ScriptedPikeOptions = {};

beforeAll(async () => {
  server = await startScriptedLlmServer({
    responders: [scriptedPike({ propose: (v) => pikeOr('propose', v), select: (v) => pikeOr('select', v) })],
  });
  const documents = await preparePassages(LOTHAIR_PASSAGES);
  for (const d of documents) for (const c of d.chunks) passageOf.set(c.id, d.doc.externalId!);
  library = libraryOf(documents);
  // The atomic layer as the scripted server writes it: one question per sentence of each chunk.
  atomic = new AtomicIndex(
    documents.flatMap((d) =>
      d.chunks.flatMap((c) =>
        scriptedAtomicQuestions(c.text).map((text, n) => ({
          id: `${c.id}?${n}`,
          chunkId: c.id,
          docId: d.doc.id,
          text,
        })),
      ),
    ),
  );
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  pike = {};
});

/** The test's override of a scripted step, or the default scripted behaviour. */
function pikeOr(step: 'propose', v: Parameters<NonNullable<ScriptedPikeOptions['propose']>>[0]): string[];
function pikeOr(
  step: 'select',
  v: Parameters<NonNullable<ScriptedPikeOptions['select']>>[0],
): ReturnType<NonNullable<ScriptedPikeOptions['select']>>;
function pikeOr(
  step: 'propose' | 'select',
  v: Parameters<NonNullable<ScriptedPikeOptions['propose']>>[0],
): unknown {
  const own = pike[step];
  if (own) return own(v);
  // The defaults of scriptedPike(), re-entered through a fresh responder so both paths stay one implementation.
  const reply = scriptedPike()(
    [
      {
        role: 'system',
        content:
          step === 'propose' ? 'You plan the next retrieval step' : 'You choose which retrieved question',
      },
      {
        role: 'user',
        content:
          `Question: ${v.question}\n\n` +
          (v.context.length
            ? `Context so far:\n${v.context.map((c, i) => `[C${i + 1}] ${c}`).join('\n')}`
            : 'Context so far: (nothing yet)') +
          (step === 'select'
            ? `\n\nCandidates:\n${v.candidates.map((c, i) => `[${i + 1}] ${c}`).join('\n')}`
            : ''),
      },
    ],
    {},
  )!;
  const parsed = JSON.parse(reply) as { proposals?: string[] };
  return step === 'propose' ? parsed.proposals : parsed;
}

const client = () => scriptedClient(server);

async function ask(
  request: Partial<AskRequest>,
  options: { layer?: boolean; signal?: AbortSignal; onTrace?: (e: TraceEvent) => void } = {},
) {
  const llm = client();
  return askLibrary(
    library,
    { question: QUESTION, mode: 'decompose', budget: 12000, ...request },
    {
      kg: () => Promise.resolve(new KgIndex([], [])),
      llm: () => Promise.resolve(llm),
      atomic: () => Promise.resolve(options.layer === false ? null : atomic),
      signal: options.signal,
      onTrace: options.onTrace,
    },
  );
}

const kinds = (trace: TraceEvent[] | undefined) => (trace ?? []).map((e) => `${e.round}:${e.kind}`);
const passages = (r: { evidence: Array<{ chunkId: string }> }) =>
  r.evidence.map((e) => passageOf.get(e.chunkId));

describe('decompose', () => {
  it('follows the hops: the question, then the name it found; stops when the model says sufficient', async () => {
    // A model that reads the context: after p1 it asks about the mother p1 names.
    pike.propose = (v) =>
      v.context.length === 0
        ? ['Who was the mother of Lothair II']
        : v.context[0].includes('Ermengarde of Tours')
          ? ['Ermengarde of Tours']
          : [];
    const r = await ask({});
    // Round 1: p1's "…: His mother was Ermengarde of Tours?" is the best candidate, picked. Round 2 asks about
    // her; p1 is in the context, so p2's question is candidate [1], picked; two chunks: sufficient.
    expect(passages(r)).toEqual(['p1', 'p2']);
    expect(kinds(r.trace)).toEqual([
      '1:propose',
      '1:search',
      '1:select',
      '2:propose',
      '2:search',
      '2:select',
      '2:stop',
    ]);
    expect(r.trace!.at(-1)!.title).toBe('Stopped: the context is sufficient');
    // Each evidence says which atomic question led to it.
    expect(r.evidence[1].provenance.via).toBe(
      'What about Ermengarde of Tours died on 20 March 851 in Tours?',
    );
    expect(r.evidence.every((e) => e.provenance.mode === 'decompose')).toBe(true);
    // Two proposals and two selections, each one call; every event with a call carries its tokens.
    expect(r.usage?.calls).toBe(4);
    for (const e of r.trace!.filter((e) => e.kind === 'propose' || e.kind === 'select')) {
      expect(e.usage?.calls).toBe(1);
      expect(e.usage!.inputTokens).toBeGreaterThan(0);
    }
    expect(r.trace![2].items![0]).toMatchObject({ chosen: true });
  });

  it('stops after N rounds when the model never says sufficient', async () => {
    pike.select = (v) => ({
      choice: v.candidates.length ? 1 : null,
      sufficient: false,
      reason: 'keep going',
    });
    pike.propose = () => ['Lotharingia'];
    const r = await ask({ reasoning: { maxRounds: 2, delta: 0 } });
    expect(kinds(r.trace).filter((k) => k.endsWith('select'))).toEqual(['1:select', '2:select']);
    expect(r.trace!.at(-1)).toMatchObject({ round: 2, kind: 'stop', title: 'Stopped: 2 rounds done' });
    expect(r.evidence).toHaveLength(2);
    expect(r.usage?.calls).toBe(4);
  });

  it('stops when no candidate passes δ, before any selection call', async () => {
    pike.propose = () => ['zebra quantum xylophone'];
    const r = await ask({ reasoning: { delta: 0.5 } });
    expect(kinds(r.trace)).toEqual(['1:propose', '1:search', '1:stop']);
    expect(r.trace![1].items).toEqual([]);
    expect(r.trace![2].title).toMatch(/^Stopped: no candidate passes/);
    expect(r.evidence).toEqual([]);
    expect(r.usage?.calls).toBe(1);
  });

  it('stops when the model says none fits', async () => {
    pike.select = () => ({ choice: null, sufficient: false, reason: 'none is about his mother' });
    const r = await ask({});
    expect(r.trace!.at(-1)!.title).toBe('Stopped: no candidate fits');
    expect(r.trace!.find((e) => e.kind === 'select')!.detail).toBe('none is about his mother');
    expect(r.evidence).toEqual([]);
  });

  it('a selection malformed twice stops the run with the reason, keeping the context so far', async () => {
    server.script(
      { kind: 'malformed', when: 'You choose which' },
      { kind: 'malformed', when: 'You choose which' },
    );
    const r = await ask({});
    const last = r.trace!.at(-1)!;
    expect(last.title).toBe('Stopped: the selection step failed');
    expect(last.detail).toMatch(/^select: malformed output twice/);
    expect(r.usage?.calls).toBe(3);
  });

  it('without an atomic layer it searches chunks (ppr) and still follows the hops', async () => {
    const r = await ask({}, { layer: false });
    expect(r.trace![1].title).toMatch(/chunks by ppr/);
    expect(passages(r)[0]).toBe('p1');
    expect(r.evidence.length).toBeGreaterThanOrEqual(1);
  });

  it('cancelled: the run stops at its next call and the question fails as cancelled', async () => {
    const stop = new AbortController();
    server.setLatency(50);
    try {
      await expect(
        ask({}, { signal: stop.signal, onTrace: (e) => e.kind === 'propose' && stop.abort() }),
      ).rejects.toThrow(/abort/i);
    } finally {
      server.setLatency(0);
    }
    // The proposal call and nothing after it.
    expect(server.requests.filter((r) => r.path === '/v1/chat/completions').length).toBeLessThanOrEqual(2);
  });
});

describe('atomic mode', () => {
  it('merges ppr with the chunks reached through atomic questions, and says which question led there', async () => {
    const r = await askLibrary(
      library,
      {
        question: 'What about Port of Spain is the capital of Trinidad and Tobago?',
        mode: 'atomic',
        budget: 12000,
      },
      { kg: () => Promise.resolve(new KgIndex([], [])), atomic: () => Promise.resolve(atomic) },
    );
    expect(passages(r)[0]).toBe('p3');
    expect(r.evidence[0].provenance).toMatchObject({
      mode: 'atomic',
      via: 'What about Port of Spain is the capital of Trinidad and Tobago?',
    });
    // No LLM was asked.
    expect(server.requests).toHaveLength(0);
  });

  it('refuses with the reason on a library without the atomic layer', async () => {
    await expect(
      askLibrary(
        library,
        { question: QUESTION, mode: 'atomic', budget: 12000 },
        { kg: () => Promise.resolve(new KgIndex([], [])) },
      ),
    ).rejects.toThrow(/needs the atomic layer/);
  });
});
