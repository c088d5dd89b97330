// A question's analysed texts, kept for its later runs (round twenty-three, issue 47). A library read by ranges runs
// a question once a round of reads (6–8 times at 100 MiB), and every run analyses the same texts again: the question,
// its cards' records (their relevance, their highlighted sentences, the first page's choice of cards). In a Chromium
// worker at 100 MiB that analysis was ~190 ms of a question's ~2 s of work (link-cpu-profile.ts --inclusive,
// stemmedTerms). The analyser is a pure function of the text, so a kept result is the one it would give again.
import type { TermAnalyzer } from '../graph/index.ts';

/** Characters of the texts kept at most (their terms take a few times that): past it, all are forgotten. */
const MAX_KEPT_CHARS = 4_000_000;

export class KeptTerms {
  private readonly kept = new Map<string, readonly string[]>();
  private chars = 0;
  /** The analyser with terms() kept; its other methods are the analyser's own. */
  readonly analyzer: TermAnalyzer;

  constructor(analyzer: TermAnalyzer) {
    const terms = (text: string): string[] => this.terms(analyzer, text);
    // Object.create: an analyser whose methods live on a prototype keeps them.
    this.analyzer = Object.assign(Object.create(analyzer) as TermAnalyzer, { terms });
  }

  /** Forgets every text: a question's own are kept for that question only. */
  clear(): void {
    this.kept.clear();
    this.chars = 0;
  }

  private terms(analyzer: TermAnalyzer, text: string): string[] {
    let terms = this.kept.get(text);
    if (!terms) {
      terms = analyzer.terms(text);
      if (this.chars + text.length > MAX_KEPT_CHARS) this.clear();
      this.kept.set(text, terms);
      this.chars += text.length;
    }
    // A copy: a caller may sort or extend what it is given.
    return [...terms];
  }
}
