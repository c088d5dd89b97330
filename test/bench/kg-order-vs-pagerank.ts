// How close the KG build's order from a library's pages (buildOrder in degreeRanks.ts: each chunk's concepts' weighted
// degree over their chunk counts) is to the order a library in memory uses (the same sum of the concepts' global
// PageRank, conceptGraph.ts globalRanks): the share of the core chunks both select, at several κ. Prints one line a
// corpus, with the load average.
// Usage: node --import tsx test/bench/kg-order-vs-pagerank.ts <corpus.jsonl or folder>… [--kappa 0.05,0.2,0.5,0.8]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { weightedDegreesFromTable } from '../../src/core/graph/cooccurrence.ts';
import { rankOrder, selectCoreChunks } from '../../src/core/kg/index.ts';
import { RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { loadText } from './lib/report.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kappa: { type: 'string', default: '0.05,0.2,0.5,0.8' } },
});
if (positionals.length === 0) {
  process.stderr.write(
    'usage: node --import tsx test/bench/kg-order-vs-pagerank.ts <corpus>… [--kappa 0.05,0.2]\n',
  );
  process.exit(2);
}
const kappas = values.kappa.split(',').map(Number);
for (const path of positionals) {
  const corpus = await prepareCorpus(path, 1200);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    createTermAnalyzer(),
  );
  const { table, chunkIds, chunkRank, options } = engine.graph;
  const degrees = weightedDegreesFromTable(table, options.thetaCo);
  const byDegree = chunkIds.map((chunkId, k) => {
    let rank = 0;
    for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
      const c = table.chunkConcepts[j];
      rank += degrees[c] / (table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c]);
    }
    return { chunkId, rank };
  });
  const byPageRank = chunkIds.map((chunkId, k) => ({ chunkId, rank: chunkRank[k] }));
  const core = (ranks: Array<{ chunkId: string; rank: number }>, kappa: number) =>
    selectCoreChunks(
      rankOrder(ranks).map((chunkId, i) => ({ chunkId, rank: -i })),
      kappa,
    );
  const shares = kappas.map((kappa) => {
    const pagerank = new Set(core(byPageRank, kappa));
    const both = core(byDegree, kappa).filter((id) => pagerank.has(id)).length;
    return `κ ${kappa}: ${both}/${pagerank.size} (${((100 * both) / pagerank.size).toFixed(1)}%)`;
  });
  process.stdout.write(
    `${path}: ${table.chunkCount} chunks; core chunks by weighted degree that PageRank selects too: ` +
      `${shares.join('; ')}; load ${loadText()}\n`,
  );
}
