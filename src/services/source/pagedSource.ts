// A paged index (src/core/paged) as a LibrarySource: a bundle read by ranges over any RangeSource, or the library's
// own stored pages. It answers the walk and the words by reading only the blocks a question needs, and reads a
// chunk by id from the records of its pages, so the KG and reasoning modes run over it as over memory. Its KG and
// atomic questions, where it has them, are read whole once by the caller's loader (a bundle's part, or the tab's
// own stores). A question keeps the records its searches and lookups read: its evidence and citations read them.
import type { KgChunkView } from '../../core/kg/index.ts';
import {
  buildOrder,
  type PagedAnswer,
  type PagedChunkRecord,
  type PagedLibrary,
} from '../../core/paged/index.ts';
import { DEFAULT_MODE } from '../../core/retrieval/index.ts';
import { recordEvidence } from '../questions/evidence.ts';
import { pagedLibraryGraph, pagedQuestionGraph } from '../questions/graphView.ts';
import type { Capability } from '../questions/modeRegistry.ts';
import type { PagedReads } from '../questions/queryProtocol.ts';
import { recordCitations, recordSentences } from '../questions/writtenAnswer.ts';
import { pagedCore } from './pagedCore.ts';
import {
  layerLacking,
  noDocument,
  REMOVED_BUDGET_GROWTH,
  withoutRemoved,
  type LibrarySource,
  type SourceLayers,
  type SourceQuestion,
  type UnreadHits,
} from './librarySource.ts';

/**
 * No KG: `kg` and `hybrid` are refused, `logical` reads passages; no atomic questions: `atomic` is refused,
 * `decompose` searches chunks; no themes: none.
 */
interface PagedLayers extends SourceLayers {
  /**
   * How a refusal names this library and the modes it answers (default: "a library read by ranges answers …");
   * the library's own stored pages say why it is answered from them.
   */
  answering?: (modes: string) => string;
  /** What a result says it was answered from (the stored pages: `pages`). */
  from?: 'pages';
}

/** Records read at once for the KG's first chunks (a 12,000-token budget holds 20–60 passages). */
const KG_FIRST_BATCH = 32;

export function pagedSource(library: PagedLibrary, layers: PagedLayers = {}): LibrarySource {
  const has = new Set<Capability>(['walk', 'concepts', 'bm25', 'fusion', 'chunks']);
  if (layers.kg) has.add('kg');
  if (layers.atomic) has.add('atomic');
  /** The records of the chunks the last question showed: the sentences and pages its written answer cites. */
  let shown = new Map<string, PagedChunkRecord>();
  const source: LibrarySource = {
    kind: 'pages',
    has,
    ...(layers.from ? { from: layers.from } : {}),
    layers: { lexical: true, semantic: false },
    lacking: (capability) =>
      capability === 'kg' || capability === 'atomic' ? layerLacking(capability) : 'the library in memory',
    answering: layers.answering ?? ((modes) => `a library read by ranges answers ${modes}`),
    question: (signal) => {
      const question = pagedQuestion(library, signal, layers.removed);
      return { ...question, show: (hits) => (shown = question.records(hits)) };
    },
    terms: (text) => library.terms(text),
    prepare: (text, wanted) => library.prepare(text, wanted),
    kg: layers.kg ?? (() => Promise.reject(new Error(source.lacking('kg')))),
    atomic: layers.atomic ?? (() => Promise.resolve(null)),
    citations: () => recordCitations(shown),
    questionGraph: (question, _vector, caps, signal) =>
      pagedQuestionGraph(library, question, caps, signal, layers.removed),
    libraryGraph: (options, signal) => pagedLibraryGraph(library, options, signal),
    document: () => noDocument(source),
    ...(layers.themes ? { themes: layers.themes } : {}),
    // The concepts' weighted degree in place of PageRank (degreeRanks.ts, buildOrder); the core chunks and their texts
    // are read as the build needs them (pagedCore.ts). Loading the library instead is what a large one must not do
    // (1.1 GiB in the KG worker at 100 MiB of text, docs/results/kg-pages.md).
    buildOrder: async () => {
      const { order, tokens } = await buildOrder(library.reader);
      library.reader.forget();
      return { sizes: Array.from(order, (k) => ({ tokens: tokens[k] })), ...pagedCore(library, order) };
    },
  };
  return source;
}

/**
 * One question's reads of a paged library: every search and lookup adds its records and its reads; `records(hits)`
 * gives the records of the chunks shown.
 */
function pagedQuestion(
  library: PagedLibrary,
  signal: AbortSignal,
  removed: ReadonlySet<string> = new Set(),
): Omit<SourceQuestion, 'show'> & {
  records(hits: readonly { chunkId: string }[]): Map<string, PagedChunkRecord>;
} {
  const records = new Map<string, PagedChunkRecord>();
  const reads: PagedReads = { bytes: 0, rounds: 0, waitMs: 0 };
  const add = (read: { bytes: number; rounds: number; waitMs: number }) => {
    reads.bytes += read.bytes;
    reads.rounds += read.rounds;
    reads.waitMs += read.waitMs;
  };
  const read = async (batch: readonly string[]) => {
    const wanted = batch.filter((id) => !records.has(id));
    if (wanted.length === 0) return;
    const found = await library.reader.recordsById(wanted, signal);
    for (const [id, record] of found.value) records.set(id, record);
    add(found);
  };
  return {
    reads,
    search: async (query, mode, budget, options = {}) => {
      let { early } = options;
      // Unread hits carry no document: with documents removed, every hit's record is read to leave them out.
      const cards = removed.size === 0 ? options.cards : undefined;
      // With documents removed since the pages were written, the ranking is read further (a larger budget) until
      // what remains fills the budget, or the ranking ends.
      for (let asked = budget; ; asked *= 2) {
        const answer = await library.search(
          query.text,
          mode === DEFAULT_MODE ? 'ppr' : mode,
          asked,
          signal,
          early &&
            ((answer: PagedAnswer) => {
              for (const [id, record] of answer.records) records.set(id, record);
              early?.(withoutRemoved(answer.hits, removed, budget), costOf(answer), unreadOf(answer));
            }),
          cards?.wanted,
        );
        for (const [id, record] of answer.records) records.set(id, record);
        add(answer);
        const { rest } = answer;
        const unread = unreadOf(answer);
        if (cards && unread)
          cards.unread(unread, async () => {
            if (!rest) return answer.hits;
            const whole = await rest(signal);
            for (const [id, record] of whole.records) records.set(id, record);
            add(whole);
            return whole.hits;
          });
        if (removed.size === 0) return answer.hits;
        early = undefined; // sent once, from the first reading
        const kept = withoutRemoved(answer.hits, removed, budget);
        const all = kept.length === answer.hits.length;
        const filled = kept.reduce((n, h) => n + h.tokens, 0) >= budget / 2;
        if (all || filled || answer.hits.length === 0 || asked >= budget * REMOVED_BUDGET_GROWTH) return kept;
      }
    },
    chunk: (id) => chunkView(records.get(id)),
    readChunks: async (ids, cut) => {
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
    },
    evidence: (hit) => recordEvidence(hit, records.get(hit.chunkId)),
    records: (hits) => {
      const kept = new Map<string, PagedChunkRecord>();
      for (const hit of hits) {
        const record = records.get(hit.chunkId);
        if (record) kept.set(hit.chunkId, record);
      }
      return kept;
    },
  };
}

/** What an answer read. */
function costOf(answer: PagedAnswer): PagedReads {
  return { bytes: answer.bytes, rounds: answer.rounds, waitMs: answer.waitMs };
}

/** An answer's unread hits (none, maybe) and its hits' places, when it was asked with cards. */
function unreadOf(answer: PagedAnswer): UnreadHits | undefined {
  return answer.unread && answer.places ? { unread: answer.unread, keys: answer.places } : undefined;
}

/** A chunk record as the reasoning modes read a chunk. */
export function chunkView(record: PagedChunkRecord | undefined): KgChunkView | undefined {
  return (
    record && {
      docId: record.docId,
      text: record.text,
      tokens: record.tokens,
      sentences: recordSentences(record),
    }
  );
}
