// The text analysis of a library load, begun while the load still waits for the store. The query worker's load reads
// the documents, sections and chunks first and the sentences last; the sentences are the largest table (349 of the
// 488 ms of docs-scale's read at load 2, docs/results/trust.md, round fourteen), and while the browser reads them this
// thread had nothing to do. Then it analysed every chunk's text for BM25 (354 ms there), on the question's path. Begun
// as soon as the chunks are here (Repo.loadCorpus's `ahead`), the analysis runs while the sentences are read, and
// the load's BM25 build (RetrievalEngine.prepareText) takes each chunk's terms from it. The terms are those the
// analyser gives for the same text, looked up by that text, so the index is the one analysed after the read, term for
// term; a text that was not analysed ahead (none should be) is analysed then, as before. Nothing is analysed twice, and
// nothing is done earlier than the question's own load: the drop does not pay for it.
import type { TermAnalyzer } from '../../core/graph/index.ts';
import { resolveParams, withSectionPaths } from '../../core/retrieval/index.ts';
import type { LoadedCorpus } from '../../store/repo.ts';

/** What Repo.loadCorpus hands ahead, before the sentences are read. */
export type CorpusAhead = Pick<LoadedCorpus, 'meta' | 'documents' | 'sections' | 'chunks'>;

/** Each chunk's terms (text and heading path), analysed while the rest of the library was read. */
export class AnalysisAhead {
  /**
   * Terms by the text they were analysed from (a heading path is shared by the chunks of its section, so a list may be
   * asked for more than once); the load lets go of the whole once its index is built.
   */
  private readonly terms = new Map<string, string[]>();
  /** Texts whose terms came from here, and texts analysed after all (not seen ahead: the store changed between). */
  hits = 0;
  misses = 0;

  constructor(private readonly base: TermAnalyzer) {}

  /**
   * Analyses what prepareText will: every chunk's text and, when the heading field counts (headingWeight), its
   * heading path as retrievalInput gives it (withSectionPaths).
   */
  analyse(part: CorpusAhead): void {
    const withHeadings = Math.round(resolveParams().headingWeight) > 0;
    for (const c of withSectionPaths(part.documents, part.sections, part.chunks)) {
      this.add(c.text);
      if (withHeadings && c.path.length) this.add(c.path.join('\n'));
    }
  }

  /** How many texts are held, analysed (for the load's marks). */
  get size(): number {
    return this.terms.size;
  }

  private add(text: string): void {
    if (!this.terms.has(text)) this.terms.set(text, this.base.terms(text));
  }

  /**
   * The analyser, its `terms` answered from what was analysed ahead (the BM25 build reads each list and keeps none,
   * so the same list may be handed out twice).
   */
  analyzer(): TermAnalyzer {
    return {
      ...this.base,
      terms: (text) => {
        const held = this.terms.get(text);
        if (held === undefined) {
          this.misses++;
          return this.base.terms(text);
        }
        this.hits++;
        return held;
      },
    };
  }
}
