// KAG's question mode `logical`: the question is planned as logical-form steps, executed over the library's KG
// (triples, attributes) with the chunks as fallback (`ppr` for each step rendered as a sub-question), and reflected
// on for at most R rounds (src/core/logical). The hits are the chunks behind the triples and passages the run used,
// each with the sentences that state them, so the written answer cites those sentences; the facts are the values
// the run computed and the answers it established.
import { sentencesNaming, type KgChunkView, type KgIndex } from '../../core/kg/index.ts';
import { SOLVER_DEFAULTS, solve, type Evidence, type Passage } from '../../core/logical/index.ts';
import type { RetrievedChunk } from '../../core/retrieval/index.ts';
import type { ModeHandler } from './modeTypes.ts';
import { messageOf } from '../../core/errors.ts';

/** Tokens of chunks read per fallback sub-question (the executor reads the best few). */
const FALLBACK_BUDGET = 2000;

export const logicalMode: ModeHandler = async (ctx) => {
  const llm = await ctx.llm();
  // The KG is where retrieval looks first, not a precondition: a library (or a CLI bundle) without one is solved
  // from the passages, and the trace says so.
  let kg: ReturnType<KgIndex['graph']> = { entities: [], relations: [] };
  try {
    kg = (await ctx.kg()).graph();
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.trace({
      round: 1,
      kind: 'kg',
      title: 'No knowledge graph: every retrieval step reads passages',
      detail: messageOf(err),
    });
  }
  const read = new Map<string, RetrievedChunk>();
  const passages = async (question: string): Promise<Passage[]> => {
    const vector = await ctx.embed(question);
    const hits = await ctx.search({ text: question, vector }, 'ppr', FALLBACK_BUDGET);
    for (const h of hits) if (!read.has(h.chunkId)) read.set(h.chunkId, h);
    return hits.map((h) => ({ chunkId: h.chunkId, text: h.text }));
  };
  const solution = await solve(ctx.question, {
    kg: { ...kg, embed: (text) => ctx.embed(text) },
    passages,
    llm,
    signal: ctx.signal,
    maxRounds: ctx.reasoning.maxRounds ?? SOLVER_DEFAULTS.maxRounds,
    trace: (event) => ctx.trace(event),
  });
  // Over a library read by ranges, the chunks the KG's triples came from are read before they are shown.
  await ctx.readChunks?.(solution.evidence.flatMap((e) => (e.kind === 'triple' ? e.chunkIds : [e.chunkId])));
  return {
    hits: hitsOf(solution.evidence, read, ctx.chunkView, ctx.budget),
    facts: solution.facts,
    usage: solution.usage,
  };
};

/**
 * How a stored value may be written in its chunk: dates are stored ISO ("1994-03-12") but written "12 March 1994",
 * so the year finds the sentence; numbers are stored plain but written with separators ("1,200,000").
 */
function writtenForms(value: string): string[] {
  const forms = [value];
  const year = /^(\d{4})(?:-\d{2}){0,2}$/.exec(value);
  if (year) forms.push(year[1]);
  const number = /^(\d+(?:\.\d+)?)(?: |$)/.exec(value);
  if (number && !year) forms.push(Number(number[1]).toLocaleString('en-US'), number[1]);
  return forms;
}

/** The chunks behind the evidence, in order of use, cut to the budget. */
function hitsOf(
  evidence: readonly Evidence[],
  read: ReadonlyMap<string, RetrievedChunk>,
  chunkView: (id: string) => KgChunkView | undefined,
  budget: number,
): RetrievedChunk[] {
  const needles = new Map<string, string[]>();
  const order: string[] = [];
  const via = new Map<string, string>();
  for (const e of evidence) {
    const ids = e.kind === 'triple' ? e.chunkIds : [e.chunkId];
    for (const id of ids) {
      if (!needles.has(id)) {
        needles.set(id, []);
        order.push(id);
        via.set(id, e.kind === 'triple' ? `triple (${e.s}, ${e.p}, ${e.o})` : 'passage read for a step');
      }
      if (e.kind === 'triple') needles.get(id)!.push(e.s, ...writtenForms(e.o));
    }
  }
  const out: RetrievedChunk[] = [];
  let used = 0;
  order.forEach((id, rank) => {
    const view = chunkView(id);
    if (!view || used + view.tokens > budget) return;
    used += view.tokens;
    const passage = read.get(id);
    // The sentences that contain the most needles (names, values as written) longer than one letter.
    const named = sentencesNaming(
      view,
      needles.get(id)!.filter((n) => n.toLowerCase().length > 1),
    );
    out.push({
      chunkId: id,
      docId: view.docId,
      score: 1 / (1 + rank),
      text: view.text,
      tokens: view.tokens,
      provenance: { mode: 'logical', via: via.get(id) },
      // A passage's own best sentences when no triple names a sentence of it (the step read the whole passage).
      bestSentences: named.length ? named : passage && !passage.excerptStart ? passage.bestSentences : [],
    });
  });
  return out;
}
