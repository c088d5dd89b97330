// Why one question's answer falls down a library: per library given, the question's words with their BM25 IDF,
// the sections the default mode's words (BM25F over text and headings) put first with the size of the text each is
// part of (what the question blend reads), the blend that gives, and the default mode's and bm25's first sections.
// Run it on a set's own folder and on a mixed library holding it, and compare (issue 45's readline question).
// --holds adds, under each of BM25F's first sections, its length (text words + heading words) and how often it holds
// each question word in its text and heading: what BM25's saturation reads (a long section holding the common words
// many times against short ones holding one word whose IDF the library raised; retrieval-stemming.md, round eleven).
// Usage: node --import tsx test/bench/word-sections.ts --corpus <folder|jsonl> [--corpus …]
//          [--question "<text>"] [--top 12] [--holds]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULTS } from '../../src/core/retrieval/params.ts';
import { questionBlend } from '../../src/core/retrieval/questionBlend.ts';
import { DEFAULT_MODE, RetrievalEngine, titleGroupSizes } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string', multiple: true, default: [] },
    question: {
      type: 'string',
      default: 'How do I read a file line by line in Node without loading it into memory?',
    },
    top: { type: 'string', default: '12' },
    holds: { type: 'boolean', default: false },
  },
});
if (opts.corpus.length === 0) throw new Error('word-sections: --corpus <folder|jsonl> is required');
const top = Number(opts.top);
const analyzer = createTermAnalyzer();
const words = analyzer.terms(opts.question);

for (const path of opts.corpus) {
  // A loaded machine parses a Wikipedia .jsonl past the browser's 30 s: the bench waits (10 min).
  const corpus = await prepareCorpus(path, 1200, 'auto', 600_000);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    analyzer,
  );
  const { layout, bm25, headings } = engine.lexicalParts();
  const countIn = (list: { chunks: Uint32Array; freqs: Uint16Array } | undefined, k: number) => {
    const i = list ? list.chunks.indexOf(k) : -1;
    return i < 0 ? 0 : list!.freqs[i];
  };
  const holdings = (k: number) => {
    const inHeading = headings?.headings;
    const held = [...new Set(words)]
      .map((w) => [w, countIn(bm25.postingsOf(w), k), countIn(inHeading?.postingsOf(w), k)] as const)
      .filter(([, t, h]) => t + h > 0)
      .map(([w, t, h]) => `${w} ${t}+${h}`);
    return `length ${bm25.lengthOf(k)}+${inHeading?.lengthOf(k) ?? 0}: ${held.join(', ') || 'none'}`;
  };
  const sizes = titleGroupSizes(layout.chunks);
  const section = (k: number) => {
    const c = layout.chunks[k];
    const doc = corpus.externalIds.get(c.docId) ?? c.docId;
    return [doc, ...(c.path ?? []).slice(1)].join(' › ');
  };
  process.stdout.write(`\n== ${path}: ${layout.chunks.length} chunks; "${opts.question}"\n`);
  process.stdout.write(
    `words (BM25 IDF): ${[...new Set(words)].map((w) => `${w} ${bm25.idf(w).toFixed(2)}`).join(', ')}\n`,
  );
  if (headings) {
    const best = headings.search(words, top);
    process.stdout.write('BM25F (text + headings), [chunks of its text]:\n');
    best.forEach(({ chunk, score }, i) => {
      process.stdout.write(`  ${i + 1}. ${score.toFixed(2)} [${sizes[chunk]}] ${section(chunk)}\n`);
      if (opts.holds) process.stdout.write(`       ${holdings(chunk)}\n`);
    });
    const blend = questionBlend(
      { topChunks: best.map((c) => c.chunk), documentChunks: (k) => sizes[k] },
      { neighbours: DEFAULTS.blendNeighbours, from: DEFAULTS.blendFrom, to: DEFAULTS.blendTo },
    );
    process.stdout.write(`blend ${blend.toFixed(2)} (1 = the words rank, 0 = the walk)\n`);
  }
  for (const mode of [DEFAULT_MODE, 'bm25']) {
    process.stdout.write(`${mode}:\n`);
    engine
      .rank({ text: opts.question }, mode)
      .slice(0, top)
      .forEach(({ chunk, score }, i) =>
        process.stdout.write(`  ${i + 1}. ${score.toFixed(3)} ${section(chunk)}\n`),
      );
  }
}
