// The top concepts of a library, as the Graph view lists them: what a person reads as the library's subjects.
// Indexes a folder (or a .jsonl corpus) with the app's own code (lexical layer) and prints the first N by PageRank
// alone (the list before round three) and as the Graph view now lists them (src/core/retrieval/subjects.ts: stem
// forms merged, single words weighed by their spread over the documents), then where each word given after N stands
// in both (its rank, its chunks, or why it is no concept).
// Usage: node --import tsx test/bench/top-concepts.ts <folder or corpus.jsonl> [N=30] [word...]
import process from 'node:process';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { conceptMap, RetrievalEngine } from '../../src/core/retrieval/index.ts';
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
// As the Graph view lists them: a longer list so the words asked about below find their place in it.
const listed = conceptMap(engine.graph, { limit: 500, edges: 0 }, (limit) =>
  engine.subjectScores(limit),
).nodes;
process.stdout.write(
  `top ${top.length} as the Graph view lists them (subjects):\n${listed
    .slice(0, Number(count))
    .map((n) => n.term)
    .join(', ')}\n`,
);
const listedAt = new Map(listed.map((n, i) => [n.term, i + 1]));
const position = new Map(order.map((c, i) => [table.terms[c], i + 1]));
for (const word of words) {
  const c = table.terms.indexOf(word);
  const at = position.get(word);
  process.stdout.write(
    c < 0
      ? `${word}: no concept${isGenericWord(word) ? ' (a generic word: src/core/text/generic.ts)' : ''}\n`
      : `${word}: rank ${at} by PageRank, ${listedAt.get(word) ?? 'not in the first 500'} as a subject, in ${table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c]} chunks\n`,
  );
}
