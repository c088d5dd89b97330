// Runs one question mode over a loaded library and maps its hits to the evidence the page shows: the one path of
// a question, whoever asks it (the query service for the page, `cli ask` for a bundle file, the bench for its
// in-memory library), so a mode behaves the same in all three.
import type { AtomicIndex } from '../../core/atomic/index.ts';
import type { KgChunkView, KgIndex } from '../../core/kg/index.ts';
import type { LlmClient, TraceEvent } from '../../core/llm/index.ts';
import { cleanHeading, rateEvidence, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { toEvidence } from './evidence.ts';
import { DEFAULT_LAMBDA, modeHandler } from './modes.ts';
import { sentencesWithin, type QuestionLibrary } from '../library/questionLibrary.ts';
import type { AskRequest, AskResult, Evidence, TraceListener } from './queryProtocol.ts';
import type { ModeResult } from './modeTypes.ts';

/** What askLibrary needs beyond the library and the request. */
export interface AskOptions {
  /** The question embedded by the library's embedder (absent: lexical only). */
  vector?: Float32Array;
  /** Loads the KG index on demand. */
  kg: () => Promise<KgIndex>;
  /** Loads the atomic-question index on demand (absent or null: the library has no atomic layer). */
  atomic?: () => Promise<AtomicIndex | null>;
  /** The configured endpoint's client, for the reasoning modes (absent: they refuse, naming the mode). */
  llm?: () => Promise<LlmClient>;
  /** Embeds a sub-question with the library's embedder (absent: sub-questions are searched lexically). */
  embed?: (text: string) => Promise<Float32Array | undefined>;
  onTrace?: TraceListener;
  signal?: AbortSignal;
}

/**
 * Runs one mode over a loaded library: the service does this for the page, the CLI for a bundle file and the
 * bench for its in-memory library.
 */
export async function askLibrary(
  library: QuestionLibrary,
  request: AskRequest,
  options: AskOptions,
): Promise<AskResult> {
  const started = performance.now();
  const budget = Math.max(1, Math.floor(request.budget));
  const run = modeRun(request, started, options);
  const found = await modeHandler(request.mode)({
    question: request.question,
    vector: options.vector,
    budget,
    lambda: request.lambda ?? DEFAULT_LAMBDA,
    search: async (query, mode, b) => library.engine.search(query, mode, b),
    chunkView: (chunkId) => chunkView(library, chunkId),
    kg: options.kg,
    atomic: options.atomic ?? (() => Promise.resolve(null)),
    reasoning: request.reasoning ?? {},
    llm: run.llm,
    embed: options.embed ?? (() => Promise.resolve(undefined)),
    trace: run.trace,
    signal: options.signal ?? new AbortController().signal,
  });
  const shown = found.hits.map((hit) => evidence(library, hit));
  // One scale for every mode, from what the mode returned (relevance.ts).
  const rated = rateEvidence(request.question, shown, (text) => library.engine.terms(text));
  shown.forEach((e, i) => (e.relevance = rated.relevance[i]));
  return {
    question: request.question,
    mode: request.mode,
    budget,
    evidence: shown,
    ...(rated.noGoodMatch ? { noGoodMatch: true } : {}),
    layers: library.layers,
    layer: options.vector ? 'semantic' : 'lexical',
    ...(found.kg ? { kg: found.kg } : {}),
    ...run.result(found),
    milliseconds: performance.now() - started,
  };
}

/**
 * What a mode's run needs that does not depend on the library, whichever library it searches (askPaged runs the
 * reasoning modes over pages with it): the endpoint's client, or the refusal naming the mode; the trace, streamed
 * and kept; and the run's own part of the result.
 */
export function modeRun(
  request: AskRequest,
  started: number,
  options: { llm?: () => Promise<LlmClient>; onTrace?: TraceListener },
) {
  const events: TraceEvent[] = [];
  return {
    llm:
      options.llm ??
      (() =>
        Promise.reject(
          new Error(
            `mode ${request.mode} needs an LLM endpoint: set its base URL and model in Settings first`,
          ),
        )),
    trace: (event: Omit<TraceEvent, 'mode' | 'at'>): void => {
      const full: TraceEvent = { ...event, mode: request.mode, at: Math.round(performance.now() - started) };
      events.push(full);
      options.onTrace?.(full);
    },
    /** The trace, facts and LLM calls of the run, as AskResult carries them. */
    result: (found: ModeResult): Pick<AskResult, 'trace' | 'facts' | 'usage'> => ({
      ...(events.length ? { trace: events } : {}),
      ...(found.facts ? { facts: found.facts } : {}),
      ...(found.usage ? { usage: { ...found.usage } } : {}),
    }),
  };
}

function chunkView(library: QuestionLibrary, chunkId: string): KgChunkView | undefined {
  const chunk = library.chunks.get(chunkId);
  return (
    chunk && {
      docId: chunk.docId,
      text: chunk.text,
      tokens: chunk.tokens,
      sentences: sentencesWithin(library, chunkId, chunk.start, chunk.text.length),
    }
  );
}

function evidence(library: QuestionLibrary, hit: RetrievedChunk): Evidence {
  const doc = library.documents.get(hit.docId);
  return shownEvidence(
    hit,
    library.chunks.get(hit.chunkId)?.start ?? 0,
    doc?.title ?? hit.docId,
    doc?.pageStarts,
  );
}

/** A hit as the page shows it, with the one scale of relevance every mode gets (relevance.ts). */
export function shownEvidence(
  hit: RetrievedChunk,
  chunkStart: number,
  title: string,
  pageStarts?: readonly number[],
): Evidence {
  const p = hit.provenance as Evidence['provenance'];
  return {
    ...toEvidence(hit, chunkStart, cleanHeading(title), pageStarts),
    // Only the fields the page shows: provenance objects may carry internal detail that does not clone well.
    provenance: {
      mode: p.mode,
      concepts: p.concepts,
      hop: p.hop,
      entities: p.entities,
      paths: p.paths,
      via: p.via,
    },
  };
}
