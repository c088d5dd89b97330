// The text analysis of a library load, begun while the load still waits for the store. The query worker's load reads
// the documents, sections and chunks first and the sentences last; the sentences are the largest table (0.2–3.7 s of
// the read at load 17–38, docs/results/trust.md, round fourteen), and while the browser read them this thread had
// nothing to do. Then it analysed every chunk's text and built BM25 (3–8 s there), on the question's path. Begun as
// soon as the chunks are here (Repo.loadCorpus's `ahead`), the analysis runs while the sentences are read, in slices
// that yield to the thread's events: done in one piece, it kept the read's transaction from committing until it
// ended (the store's success events wait behind it), which held back the ingest worker's writes, and the question
// then waited for a second load in 4 of 9 paired runs. The load takes the index when it opens exactly the chunks
// analysed (the same ids, texts and heading paths: the index prepareText builds over them, the same steps in the same
// order); otherwise it analyses as before. Nothing is done earlier than the question's own load, so the drop does not
// pay for it, and no chunk's term list is kept.
import {
  Bm25Builder,
  Bm25Index,
  HeadingFieldBm25,
  layoutCorpus,
  resolveParams,
  withSectionPaths,
  type RetrievalInput,
} from '../../core/retrieval/index.ts';
import type { TermAnalyzer } from '../../core/graph/index.ts';
import type { LoadedCorpus } from '../../store/repo.ts';
import type { PreparedOpen } from './engine.ts';

/** What Repo.loadCorpus hands ahead, before the sentences are read. */
export type CorpusAhead = Pick<LoadedCorpus, 'meta' | 'documents' | 'sections' | 'chunks'>;

type PathedChunk = ReturnType<typeof withSectionPaths<LoadedCorpus['chunks'][number]>>[number];

/** How long one slice of the analysis holds the thread before it yields. */
const SLICE_MS = 30;

/** The BM25 and heading indexes of every chunk read, built in slices while the rest of the library is read. */
export class AnalysisAhead {
  private readonly text = new Bm25Builder();
  private readonly headings: Bm25Builder | undefined;
  private readonly copies: number;
  private next = 0;
  private stopped = false;
  private analyzeMs = 0;
  private readonly started = performance.now();

  private constructor(
    private readonly chunks: PathedChunk[],
    private readonly analyzer: TermAnalyzer,
  ) {
    // As RetrievalEngine.prepareText: the chunks in id order, the heading field when a chunk has a path.
    this.copies = Math.round(resolveParams().headingWeight);
    this.headings = this.copies > 0 && chunks.some((c) => c.path.length) ? new Bm25Builder() : undefined;
  }

  /** Begins analysing every chunk of `part`, a slice at a time between the thread's other events. */
  static start(part: CorpusAhead, analyzer: TermAnalyzer, sliceMs = SLICE_MS): AnalysisAhead {
    const chunks = withSectionPaths(part.documents, part.sections, part.chunks).sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    const ahead = new AnalysisAhead(chunks, analyzer);
    void ahead.run(sliceMs);
    return ahead;
  }

  /** Chunks analysed so far, of `total`. */
  get analysed(): number {
    return this.next;
  }

  get total(): number {
    return this.chunks.length;
  }

  /** Stops the slices (the load will not take the index). */
  stop(): void {
    this.stopped = true;
  }

  private async run(sliceMs: number): Promise<void> {
    while (!this.stopped && this.next < this.chunks.length) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.stopped || this.next >= this.chunks.length) break;
      // At least one chunk a slice, however short the slice.
      const until = performance.now() + sliceMs;
      do this.step();
      while (this.next < this.chunks.length && performance.now() < until);
    }
  }

  private step(): void {
    const c = this.chunks[this.next++];
    const t = performance.now();
    const terms = this.analyzer.terms(c.text);
    const heading = this.headings && c.path.length ? this.analyzer.terms(c.path.join('\n')) : [];
    this.analyzeMs += performance.now() - t;
    this.text.add(terms);
    this.headings?.add(heading);
  }

  /**
   * prepareText's result for `input`, from the indexes built here (the rest of the chunks analysed now), when
   * `input` has exactly the chunks analysed (the same ids, texts and heading paths; its sentences are laid out here).
   * Undefined otherwise (a drop's graph that does not cover every chunk yet, a write between the reads), and the
   * slices stop.
   */
  preparedFor(input: RetrievalInput): PreparedOpen | undefined {
    const layout = layoutCorpus(input.chunks, input.sentences);
    const analysed = this.chunks;
    let same = layout.chunks.length === analysed.length && !this.stopped;
    for (let i = 0; same && i < analysed.length; i++) {
      const a = layout.chunks[i];
      const b = analysed[i];
      same = a.id === b.id && a.text === b.text && samePath(a.path, b.path);
    }
    if (!same) {
      this.stop();
      return undefined;
    }
    while (this.next < analysed.length) this.step();
    this.stopped = true;
    const params = resolveParams();
    const bm25 = new Bm25Index(this.text, params.bm25K1, params.bm25B);
    const fieldBm25 = this.headings
      ? new HeadingFieldBm25(bm25, new Bm25Index(this.headings), this.copies, params.bm25K1, params.bm25B)
      : bm25;
    const analyzeMs = this.analyzeMs;
    const bm25Ms = performance.now() - this.started - analyzeMs;
    return { input, text: { layout, bm25, fieldBm25, analyzeMs, bm25Ms } };
  }
}

function samePath(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((part, i) => part === y[i]);
}
