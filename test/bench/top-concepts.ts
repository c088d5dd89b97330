// The top concepts of a library by PageRank, as the Graph view lists them: what a person reads as the library's
// subjects. Indexes a folder (or a .jsonl corpus) with the app's own code (lexical layer) and prints the first N,
// then where each word given after N stands (its rank among the concepts, its chunks, or why it is no concept).
// Usage: node --import tsx test/bench/top-concepts.ts <folder or corpus.jsonl> [N=30] [word...]
import process from 'node:process';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { isGenericWord } from '../../src/core/text/generic.ts';

const [path, count = '30', ...words] = process.argv.slice(2);
if (!path) throw new Error('usage: top-concepts.ts <folder or corpus.jsonl> [N] [word...]');
const corpus = await prepareCorpus(path, 1200);
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  createTermAnalyzer(),
);
const { table, conceptRank } = engine.graph;
const order = Array.from(conceptRank.keys()).sort((a, b) => conceptRank[b] - conceptRank[a] || a - b);
const top = order.slice(0, Number(count)).map((c) => table.terms[c]);
process.stdout.write(
  `${path}: ${table.terms.length} concepts; top ${top.length} by PageRank:\n${top.join(', ')}\n`,
);
const position = new Map(order.map((c, i) => [table.terms[c], i + 1]));
for (const word of words) {
  const c = table.terms.indexOf(word);
  const at = position.get(word);
  process.stdout.write(
    c < 0
      ? `${word}: no concept${isGenericWord(word) ? ' (a generic word: src/core/text/generic.ts)' : ''}\n`
      : `${word}: rank ${at}, in ${table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c]} chunks\n`,
  );
}
