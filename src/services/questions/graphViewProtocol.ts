// Plain data of the concept-graph view as it crosses the query worker's boundary: a question's walk neighbourhood
// (seeds, mass concepts, the chunks they led to) and the library-wide map of top concepts. Types only, so the page
// imports them without pulling worker code into its bundle.

/** A concept drawn for a question: a seed of the walk or a concept that carried its mass. */
interface GraphConcept {
  /** Concept id in the loaded library's concept table (stable for one loaded library only). */
  id: number;
  term: string;
  /** PPR mass in the question's final walk. */
  mass: number;
}

interface GraphSeed extends GraphConcept {
  /** Restart weight among the question's seeds. */
  weight: number;
  /** Named by a word of the question (true) or nearest to its meaning (false: an embedding seed). */
  fromWords: boolean;
}

interface GraphMassConcept extends GraphConcept {
  /** A restart concept of the second walk (taken from the first walk's best chunks). */
  feedback: boolean;
}

/** A chunk the walk led to, with where its document opens. */
export interface GraphChunk {
  chunkId: string;
  docId: string;
  title: string;
  /** 0-based place in the `ppr` ranking (the Ask view's order), or -1 when only listed under a concept. */
  rank: number;
  score: number;
  /** What the question's words added to the score (the rest is the walk's). */
  words: number;
  /** The sentence the view opens: the first naming the chunk's strongest drawn concept (document offsets). */
  start: number;
  end: number;
  sentence: string;
}

interface GraphEdge {
  source: number;
  target: number;
  weight: number;
}

export interface QuestionGraph {
  question: string;
  /** The walk used the question's embedding (semantic) or its words alone (lexical). */
  layer: 'lexical' | 'semantic';
  seeds: GraphSeed[];
  concepts: GraphMassConcept[];
  /** Walk-graph edges among the drawn concepts. */
  edges: GraphEdge[];
  /** Evidence chunks in ranking order, then chunks only listed under a concept. */
  chunks: GraphChunk[];
  /** Concept → chunk: PPR mass × the concept's share of the chunk (strongest first per concept). */
  links: Array<{ concept: number; chunkId: string; contribution: number }>;
  /** Concepts the walk touched, and in the whole library: what the caps cut the drawing down from. */
  touched: number;
  libraryConcepts: number;
  milliseconds: number;
  /** Read from pages: the bytes and rounds of reads it took. */
  reads?: { bytes: number; rounds: number };
}

interface LibraryConcept {
  id: number;
  term: string;
  /** The concept's weight by the graph's `measure`: its global PageRank, or its weighted degree in the walk graph. */
  rank: number;
  /** Chunks the concept was kept for. */
  chunks: number;
}

export interface LibraryGraph {
  search: string;
  /**
   * What `rank` is and the top concepts are chosen by: the global PageRank (a library in memory), or the weighted
   * degree in the walk graph (a library answered from its pages, which do not hold the PageRank).
   */
  measure: 'pagerank' | 'degree';
  /** The concept the search found (absent: the library's top concepts). */
  focus?: number;
  nodes: LibraryConcept[];
  edges: GraphEdge[];
  /** Other concepts matching the search. */
  matches: string[];
  libraryConcepts: number;
  milliseconds: number;
  /** Read from pages: the bytes and rounds of reads it took. */
  reads?: { bytes: number; rounds: number };
}
