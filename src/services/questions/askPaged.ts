// A question to a library read by ranges (src/core/paged): the default mode or bm25, its evidence shown as
// askLibrary shows a library in memory (the same mapping, the same relevance scale), with what the question read.
// The reasoning modes that need no layer but the chunks (PIKE-RAG's decomposition without an atomic layer, KAG's
// logical solver) run their handlers over the same reads: each sub-question is a paged search. A bundle that holds
// a KG also answers `kg` and `hybrid`, and `logical` searches its KG first, as in memory; one with atomic questions
// answers `atomic`, and `decompose` searches them first. A layer is read whole once (by the caller's loader: a
// bundle's part, or the tab's own KG and atomic stores) and the records of the chunks it names are found by id in
// the pages.
import type { AtomicIndex } from '../../core/atomic/index.ts';
import type { KgChunkView, KgIndex } from '../../core/kg/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import type { PagedAnswer, PagedChunkRecord, PagedLibrary } from '../../core/paged/index.ts';
import { DEFAULT_MODE, rateEvidence, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { modeRun, shownEvidence } from './askLibrary.ts';
import { DEFAULT_LAMBDA, modeHandler } from './modes.ts';
import { parseQuestionMode } from './modeRegistry.ts';
import type { AskRequest, AskResult, PagedReads, TraceListener } from './queryProtocol.ts';

export interface PagedAskResult extends AskResult {
  reads: PagedReads;
}

/** The retrieval modes a library read by ranges (or from its stored pages) answers. */
export const PAGED_MODES = ['ppr', 'bm25'] as const;

/**
 * The reasoning modes it answers too: they search in the default mode and need no layer the pages lack (decompose
 * searches chunks where there is no atomic layer; logical reads passages where there is no KG, and says so).
 */
const PAGED_REASONING_MODES = ['decompose', 'logical'] as const;

/** The modes it answers when it has a KG (read whole beside the pages). */
const PAGED_KG_MODES = ['kg', 'hybrid'] as const;

/** The modes it answers when it has atomic questions (read whole beside the pages). */
const PAGED_ATOMIC_MODES = ['atomic'] as const;

/** The layers a paged library has beside its pages (each read whole on first use): which modes it answers. */
export interface PagedLayers {
  kg?: boolean;
  atomic?: boolean;
}

/** The modes a paged library answers with these layers, in the Ask view's order of families. */
export function pagedModeNames(layers: PagedLayers = {}): string[] {
  return [
    ...PAGED_MODES,
    ...(layers.kg ? PAGED_KG_MODES : []),
    ...(layers.atomic ? PAGED_ATOMIC_MODES : []),
    ...PAGED_REASONING_MODES,
  ];
}

/** The modes a paged library answers with these layers, for a message that names them. */
export function pagedModesText(layers: PagedLayers = {}): string {
  const names = pagedModeNames(layers).map((m) => (m === 'ppr' ? 'the default mode' : m));
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export interface PagedAskOptions {
  signal?: AbortSignal;
  /**
   * A default-mode question that waits on reads first shows the words' evidence (bm25, read in the same rounds:
   * PagedLibrary.search), marked early; the result then says whether the walk ranks otherwise.
   */
  onEarly?: (early: AskResult) => void;
  /** The configured endpoint's client, for the reasoning modes (absent: they refuse, naming the mode). */
  llm?: () => Promise<LlmClient>;
  /**
   * The library's KG, read on first use (absent: it has none; `kg` and `hybrid` are refused and `logical` reads
   * passages).
   */
  kg?: () => Promise<KgIndex>;
  /**
   * The library's atomic questions, read on first use (absent: it has none; `atomic` is refused and `decompose`
   * searches chunks).
   */
  atomic?: () => Promise<AtomicIndex | null>;
  /**
   * The question embedded with the bundle's embedder, for the KG's entity similarities (absent: pages are written
   * for lexical libraries, and a library in memory without vectors searches its KG by names alone too).
   */
  vector?: Float32Array;
  onTrace?: TraceListener;
  /**
   * Filled with the records of the chunks shown (their sentences and pages): what a written answer over this
   * evidence cites (writtenAnswer.ts, recordCitations), kept by the caller rather than sent to the page.
   */
  shownRecords?: Map<string, PagedChunkRecord>;
}

/**
 * What a paged library runs a request as: an engine mode, or a mode's handler over paged searches (the reasoning
 * modes, the KG modes when it has a KG, `atomic` when it has atomic questions).
 */
function pagedMode(mode: string, layers: PagedLayers): { engine: 'ppr' | 'bm25' } | { handler: string } {
  const { name } = parseQuestionMode(mode, { allowDefault: true });
  if (name === 'ppr' || name === 'bm25') return { engine: name };
  if (pagedModeNames(layers).includes(name)) return { handler: name };
  throw new Error(
    `mode ${mode} needs ${pagedNeeds(mode)}; a library read by ranges answers ${pagedModesText(layers)}`,
  );
}

/**
 * What a mode a paged library refuses needs: a layer it lacks (a KG, atomic questions: built, they are read beside
 * the pages), or the library in memory (the modes that need sentence vectors, which libraries with pages have not).
 */
export function pagedNeeds(mode: string): string {
  if ((PAGED_KG_MODES as readonly string[]).includes(mode))
    return 'a knowledge graph, which this library has not';
  if ((PAGED_ATOMIC_MODES as readonly string[]).includes(mode))
    return 'atomic questions, which this library has not';
  return 'the library in memory';
}

/**
 * Whether a paged library answers a mode (the query service asks before it opens anything else); `layers`: what it
 * has beside its pages.
 */
export function pagedAnswers(mode: string, layers: PagedLayers = {}): boolean {
  try {
    pagedMode(mode, layers);
    return true;
  } catch {
    return false;
  }
}

/** Answers from a paged library. */
export async function askPaged(
  library: PagedLibrary,
  request: AskRequest,
  options: PagedAskOptions = {},
): Promise<PagedAskResult> {
  const started = performance.now();
  const budget = Math.max(1, Math.floor(request.budget));
  const mode = pagedMode(request.mode, {
    kg: options.kg !== undefined,
    atomic: options.atomic !== undefined,
  });
  if ('handler' in mode) return handlerPaged(library, request, budget, options, started);
  const { onEarly, signal } = options;
  let sent: AskResult | undefined;
  const early = onEarly
    ? (answer: PagedAnswer) => {
        sent = { ...shownAnswer(library, request, budget, answer, started), stage: 'early' };
        onEarly(sent);
      }
    : undefined;
  const answer = await library.search(request.question, mode.engine, budget, signal, early);
  keepShown(options.shownRecords, answer.hits, answer.records);
  const result = shownAnswer(library, request, budget, answer, started);
  return sent ? { ...result, rankingChanged: !sameChunks(sent, result) } : result;
}

/**
 * A mode's handler (modes.ts) over a paged library: it searches through the pages, and reads the chunks it was
 * shown from the records those searches brought, or, for the chunks the KG names, from the records it found by id
 * (readChunks). The reads of every search and lookup are summed.
 */
async function handlerPaged(
  library: PagedLibrary,
  request: AskRequest,
  budget: number,
  options: PagedAskOptions,
  started: number,
): Promise<PagedAskResult> {
  const records = new Map<string, PagedChunkRecord>();
  const reads = { bytes: 0, rounds: 0, waitMs: 0 };
  const run = modeRun(request, started, options);
  const signal = options.signal ?? new AbortController().signal;
  const search = async (query: { text: string }, mode: string, size: number): Promise<RetrievedChunk[]> => {
    const answer = await library.search(query.text, mode === DEFAULT_MODE ? 'ppr' : mode, size, signal);
    for (const [id, record] of answer.records) records.set(id, record);
    reads.bytes += answer.bytes;
    reads.rounds += answer.rounds;
    reads.waitMs += answer.waitMs;
    return answer.hits;
  };
  const readChunks = async (ids: readonly string[], cut?: number): Promise<void> => {
    const read = async (batch: readonly string[]) => {
      const wanted = batch.filter((id) => !records.has(id));
      if (wanted.length === 0) return;
      const found = await library.recordsById(wanted, signal);
      for (const [id, record] of found.value) records.set(id, record);
      reads.bytes += found.bytes;
      reads.rounds += found.rounds;
      reads.waitMs += found.waitMs;
    };
    if (cut === undefined) return read(ids);
    // As far as the budget cut over them goes (KgIndex.search's), in batches that double: the first batch covers
    // a usual budget's chunks, and a question rarely needs a second.
    let used = 0;
    let batch = KG_FIRST_BATCH;
    for (let at = 0; at < ids.length; batch *= 2) {
      const next = ids.slice(at, at + batch);
      await read(next);
      for (const id of next) {
        const record = records.get(id);
        if (!record) continue;
        if (used + record.tokens > cut) return;
        used += record.tokens;
      }
      at += next.length;
    }
  };
  const found = await modeHandler(request.mode)({
    question: request.question,
    vector: options.vector,
    budget,
    lambda: request.lambda ?? DEFAULT_LAMBDA,
    search,
    chunkView: (id) => chunkView(records.get(id)),
    readChunks,
    kg: options.kg ?? (() => Promise.reject(new Error('this library read by ranges has no knowledge graph'))),
    atomic: options.atomic ?? (() => Promise.resolve(null)),
    reasoning: request.reasoning ?? {},
    llm: run.llm,
    embed: () => Promise.resolve(undefined),
    trace: run.trace,
    signal,
  });
  keepShown(options.shownRecords, found.hits, records);
  const shown = shownAnswer(library, request, budget, { hits: found.hits, records, ...reads }, started);
  // A KG mode's entities and relations, as askLibrary returns them: the relations are facts for the written answer.
  return { ...shown, ...(found.kg ? { kg: found.kg } : {}), ...run.result(found) };
}

/** Records read at once for the KG's first chunks (a 12,000-token budget holds 20–60 passages). */
const KG_FIRST_BATCH = 32;

/** Puts the records of the chunks shown into `into` (when the caller keeps them). */
function keepShown(
  into: Map<string, PagedChunkRecord> | undefined,
  hits: readonly RetrievedChunk[],
  records: ReadonlyMap<string, PagedChunkRecord>,
): void {
  if (!into) return;
  for (const hit of hits) {
    const record = records.get(hit.chunkId);
    if (record) into.set(hit.chunkId, record);
  }
}

/** A chunk record as the reasoning modes read a chunk. */
function chunkView(record: PagedChunkRecord | undefined): KgChunkView | undefined {
  return (
    record && {
      docId: record.docId,
      text: record.text,
      tokens: record.tokens,
      sentences: recordSentences(record),
    }
  );
}

/** A chunk record's sentences as offsets into its own text (the record keeps document offsets). */
export function recordSentences(record: PagedChunkRecord): Array<{ start: number; end: number }> {
  const sentences: Array<{ start: number; end: number }> = [];
  for (let i = 0; i + 1 < record.sentences.length; i += 2) {
    const start = record.sentences[i] - record.start;
    const end = record.sentences[i + 1] - record.start;
    if (start >= 0 && end <= record.text.length) sentences.push({ start, end });
  }
  return sentences;
}

/**
 * A paged answer as the Ask view shows it (askLibrary's mapping and relevance scale); `library`: what analyses the
 * question's words for the relevance (the paged library, or the analyser of chunks scored by words: askByWords.ts).
 */
export function shownAnswer(
  library: Pick<PagedLibrary, 'terms'>,
  request: AskRequest,
  budget: number,
  answer: PagedAnswer,
  started: number,
): PagedAskResult {
  const shown = answer.hits.map((hit) => {
    const record = answer.records.get(hit.chunkId);
    return shownEvidence(hit, record?.start ?? 0, record?.title ?? hit.docId, record?.pageStarts);
  });
  const rated = rateEvidence(request.question, shown, (text) => library.terms(text));
  shown.forEach((e, i) => (e.relevance = rated.relevance[i]));
  return {
    question: request.question,
    mode: request.mode,
    budget,
    evidence: shown,
    ...(rated.noGoodMatch ? { noGoodMatch: true } : {}),
    layers: { lexical: true, semantic: false },
    layer: 'lexical',
    milliseconds: performance.now() - started,
    reads: { bytes: answer.bytes, rounds: answer.rounds, waitMs: answer.waitMs },
  };
}

/** Same chunks in the same order. */
export function sameChunks(a: AskResult, b: AskResult): boolean {
  return (
    a.evidence.length === b.evidence.length && a.evidence.every((e, i) => e.chunkId === b.evidence[i].chunkId)
  );
}
