// Shapes shared by the retrieval modes: the ranked candidate lists they produce internally and the chunks with
// provenance they hand to the Ask view, the CLI and the LLM context.

export const BASE_MODES = ['ppr', 'concept', 'dense', 'bm25'] as const;

export type BaseMode = (typeof BASE_MODES)[number];

/** The mode every user gets unless they pick another (the Ask view, the CLI `ask`, the KG's concept path). */
export const DEFAULT_MODE: BaseMode = 'ppr';

/** How a chunk was found. */
export interface Provenance {
  mode: string;
  /** Concepts that led to the chunk (the strongest first). */
  concepts?: string[];
  /** Graph hops from the question's concepts (0 = a direct concept). */
  hop?: number;
  /** Free-text path, e.g. "lexical seeds + walk" or "ppr#2, bm25#5". */
  via?: string;
}

/** Character range of a sentence in RetrievedChunk.text, with its similarity to the question. */
export interface SentenceHit {
  start: number;
  end: number;
  score: number;
}

export interface RetrievedChunk {
  chunkId: string;
  docId: string;
  score: number;
  text: string;
  /** cl100k tokens of `text` (and of `heading` when set). */
  tokens: number;
  /** Heading path document › heading › subheading, where the source has one. */
  path?: readonly string[];
  /** First and last page of the chunk (1-based), where the source has pages (PDF). */
  pageStart?: number;
  pageEnd?: number;
  /**
   * Set when the whole chunk was over the budget and `text` is its best run of sentences: where that run starts in
   * the chunk text (offsets below are into `text`).
   */
  excerptStart?: number;
  /**
   * An excerpt cut from below its section's heading line carries that heading (shown above `text`, counted in
   * `tokens`, and part of the context a question is scored on); `text` stays one contiguous run of the chunk.
   */
  heading?: string;
  provenance: Provenance;
  /** Best sentences first; offsets into `text`. */
  bestSentences: SentenceHit[];
}

/** One internal candidate: chunk index (engine order) and score, with optional provenance details. */
export interface Candidate extends Pick<Provenance, 'hop' | 'via'> {
  chunk: number;
  score: number;
  concepts?: number[];
}

export interface Query {
  text: string;
  /** Unit-length question embedding (same embedder as the index), when available. */
  vector?: Float32Array;
}

export function parseMode(mode: string): { base: BaseMode } | { fuse: [BaseMode, BaseMode] } {
  const isBase = (name: string): name is BaseMode => (BASE_MODES as readonly string[]).includes(name);
  if (isBase(mode)) return { base: mode };
  const m = /^rrf:([a-z0-9]+)\+([a-z0-9]+)$/.exec(mode);
  if (m && isBase(m[1]) && isBase(m[2])) return { fuse: [m[1], m[2]] };
  throw new Error(`retrieval: unknown mode "${mode}" (expected ${BASE_MODES.join(', ')} or rrf:<a>+<b>)`);
}
