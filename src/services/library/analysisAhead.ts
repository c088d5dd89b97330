// The text analysis of a library load, begun while the load still waits for the store. The query worker's load reads
// the documents, sections and chunks first and the sentences last; the sentences are the largest table (0.8–2.2 s of
// docs-scale's read at load 11–23, docs/results/trust.md, round fourteen), and while the browser read them this
// thread had nothing to do. Then it analysed every chunk's text and built BM25 (2–7 s there), on the question's path.
// Begun as soon as the chunks are here (Repo.loadCorpus's `ahead`), the analysis and the BM25 build run while the
// sentences are read, and the load takes them when it opens exactly those chunks (the same ids, texts and heading
// paths: the same index, RetrievalEngine.prepareText over the same chunks); otherwise it analyses as before. Nothing
// is done earlier than the question's own load, so the drop does not pay for it, and no chunk's term list is kept
// (the index is built as the text is analysed, as after the read).
import {
  layoutCorpus,
  RetrievalEngine,
  withSectionPaths,
  type PreparedText,
  type RetrievalInput,
} from '../../core/retrieval/index.ts';
import type { TermAnalyzer } from '../../core/graph/index.ts';
import type { LoadedCorpus } from '../../store/repo.ts';
import type { PreparedOpen } from './engine.ts';

/** What Repo.loadCorpus hands ahead, before the sentences are read. */
export type CorpusAhead = Pick<LoadedCorpus, 'meta' | 'documents' | 'sections' | 'chunks'>;

/** The BM25 and heading indexes of every chunk read, built while the rest of the library was read. */
export class AnalysisAhead {
  private constructor(private readonly text: PreparedText) {}

  /** Analyses every chunk of `part` as prepareText does, with its heading path as retrievalInput gives it. */
  static analyse(part: CorpusAhead, analyzer: TermAnalyzer): AnalysisAhead {
    const chunks = withSectionPaths(part.documents, part.sections, part.chunks);
    return new AnalysisAhead(RetrievalEngine.prepareText({ chunks, sentences: [] }, analyzer));
  }

  /** How many chunks were analysed. */
  get chunks(): number {
    return this.text.layout.chunks.length;
  }

  /**
   * prepareText's result for `input`, from the indexes built ahead, when `input` has exactly the chunks analysed
   * (the same ids, texts and heading paths; its sentences are laid out here). Undefined otherwise: a drop's graph
   * that does not cover every chunk yet (coveredByGraph), or a write between the reads.
   */
  preparedFor(input: RetrievalInput): PreparedOpen | undefined {
    const layout = layoutCorpus(input.chunks, input.sentences);
    const analysed = this.text.layout.chunks;
    if (layout.chunks.length !== analysed.length) return undefined;
    for (let i = 0; i < analysed.length; i++) {
      const a = layout.chunks[i];
      const b = analysed[i];
      if (a.id !== b.id || a.text !== b.text || !samePath(a.path, b.path)) return undefined;
    }
    return { input, text: { ...this.text, layout } };
  }
}

function samePath(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((part, i) => part === y[i]);
}
