// PIKE-RAG's question modes. `atomic` (hierarchical retrieval, no LLM at question time): the chunks ppr finds for
// the question and the chunks whose atomic questions are most similar to it (≥ δ), merged to the budget; each
// chunk reached through an atomic question says which one. `decompose` (knowledge-aware task decomposition, the
// paper's Algorithm 1, src/core/atomic/decompose.ts): rounds of sub-questions, candidates and the model's pick,
// searched against the atomic layer where the library has one and against chunks (ppr) otherwise; the chunks it
// selected are the context of the written answer.
import {
  DEFAULT_DELTA,
  DEFAULT_MAX_ROUNDS,
  DEFAULT_TOP_K,
  runDecomposition,
  type AtomicIndex,
  type DecomposeCandidate,
} from '../../core/atomic/index.ts';
import { cutToBudget, DEFAULT_MODE, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import type { ModeContext, ModeHandler } from './modeTypes.ts';

/** Atomic questions the `atomic` mode's second path keeps (the paper's hierarchical retriever: 8 chunks). */
const ATOMIC_PATH_TOP_K = 8;

const analyzer = createTermAnalyzer();

/** A chunk as evidence, reached through `via`; its best sentence is the one sharing most terms with `via`. */
function chunkHit(
  c: ModeContext,
  chunkId: string,
  score: number,
  via: string,
  mode: string,
): RetrievedChunk | undefined {
  const view = c.chunkView(chunkId);
  if (!view) return undefined;
  const focus = new Set(analyzer.terms(via));
  const sentences = (view.sentences ?? []).map((s) => ({
    ...s,
    score: analyzer.terms(view.text.slice(s.start, s.end)).filter((t) => focus.has(t)).length,
  }));
  sentences.sort((a, b) => b.score - a.score || a.start - b.start);
  return {
    chunkId,
    docId: view.docId,
    score,
    text: view.text,
    tokens: view.tokens,
    provenance: { mode, via },
    bestSentences: sentences.slice(0, 1).map((s) => ({ start: s.start, end: s.end, score: s.score })),
  };
}

async function atomicLayer(c: ModeContext, mode: string): Promise<AtomicIndex> {
  const index = await c.atomic();
  if (!index || index.size === 0) {
    throw new Error(
      `mode ${mode} needs the atomic layer: atomize the library first (Knowledge graph → atomic questions), ` +
        `or ask in ppr`,
    );
  }
  return index;
}

export const atomicMode: ModeHandler = async (c) => {
  const index = await atomicLayer(c, 'atomic');
  const direct = await c.search({ text: c.question, vector: c.vector }, DEFAULT_MODE, c.budget);
  const found = index.search(
    { text: c.question, vector: c.vector },
    { topK: c.reasoning.topK ?? ATOMIC_PATH_TOP_K, delta: c.reasoning.delta ?? DEFAULT_DELTA },
  );
  // The atomic path in order of its best question per chunk.
  const viaAtomic = new Map<string, { via: string; score: number }>();
  for (const h of found) {
    if (!viaAtomic.has(h.question.chunkId))
      viaAtomic.set(h.question.chunkId, { via: h.question.text, score: h.score });
  }
  const directIds = new Set(direct.map((h) => h.chunkId));
  // A library read by ranges reads the records of the chunks only the atomic path found (the search brought the
  // others').
  await c.readChunks?.([...viaAtomic.keys()].filter((id) => !directIds.has(id)));
  // Found by both paths first (in ppr's order), then the two paths alternately.
  const both = direct.filter((h) => viaAtomic.has(h.chunkId));
  const onlyDirect = direct.filter((h) => !viaAtomic.has(h.chunkId));
  const onlyAtomic = [...viaAtomic].filter(([id]) => !directIds.has(id));
  const merged: RetrievedChunk[] = both.map((h) => ({
    ...h,
    provenance: { ...h.provenance, mode: 'atomic', via: viaAtomic.get(h.chunkId)!.via },
  }));
  for (let i = 0; i < Math.max(onlyDirect.length, onlyAtomic.length); i++) {
    if (i < onlyDirect.length) merged.push({ ...onlyDirect[i], provenance: { ...onlyDirect[i].provenance } });
    if (i < onlyAtomic.length) {
      const [id, { via, score }] = onlyAtomic[i];
      const hit = chunkHit(c, id, score, via, 'atomic');
      if (hit) merged.push(hit);
    }
  }
  return { hits: cutToBudget(merged, c.budget) };
};

export const decomposeMode: ModeHandler = async (c) => {
  const client = await c.llm();
  const index = await c.atomic();
  const layered = index !== null && index.size > 0;
  const topK = c.reasoning.topK ?? DEFAULT_TOP_K;
  const delta = c.reasoning.delta ?? DEFAULT_DELTA;
  const search = async (proposal: string, exclude: ReadonlySet<string>): Promise<DecomposeCandidate[]> => {
    const vector = await c.embed(proposal);
    if (layered) {
      const found = index.search({ text: proposal, vector }, { topK, delta, exclude });
      // A library read by ranges reads the candidates' records now: the one the model picks is read as context.
      await c.readChunks?.(found.map((h) => h.question.chunkId));
      return found.map((h) => ({
        text: h.question.text,
        chunkId: h.question.chunkId,
        score: h.score,
        proposal,
      }));
    }
    // No atomic layer: the sub-query's top K chunks by ppr, each shown to the model by its best sentence.
    return (await c.search({ text: proposal, vector }, DEFAULT_MODE, c.budget))
      .filter((h) => !exclude.has(h.chunkId))
      .slice(0, topK)
      .map((h) => {
        const best = h.bestSentences[0];
        const text = (best ? h.text.slice(best.start, best.end) : h.text.slice(0, 300))
          .replace(/\s+/g, ' ')
          .trim();
        return { text, chunkId: h.chunkId, score: h.score, proposal };
      });
  };
  const result = await runDecomposition({
    question: c.question,
    client,
    search,
    chunk: (id) => c.chunkView(id),
    budget: c.budget,
    maxRounds: c.reasoning.maxRounds ?? DEFAULT_MAX_ROUNDS,
    searchLabel: layered
      ? `atomic questions, top ${topK}, δ = ${delta}`
      : `chunks by ppr, top ${topK}: no atomic layer`,
    trace: (e) => c.trace(e),
    signal: c.signal,
  });
  const hits = result.context
    .map((s) => chunkHit(c, s.chunkId, s.score, s.via, 'decompose'))
    .filter((h): h is RetrievedChunk => h !== undefined);
  return { hits, usage: result.usage };
};
