// The semantic layer as the store keeps it, built with only what it needs: the concept vectors and the θsem
// keep-mask of a lexical graph index, in the compact form (src/core/graph/compactGraph.ts). The ingest worker's
// rebuild once every document has its vectors stored the compact form of a whole engine built for the purpose —
// BM25, chunk vectors, the sentences' vectors copied into layout order, every sentence's terms at once, a cosine
// per edge and the walk graph — all dropped after the write; on MuSiQue that engine was the ingest worker's peak.
// The mask is bit for bit the one that engine's exportGraph gives (same vectors, same float32 cosines).
import {
  compactGraphFromMask,
  ConceptVectorBuilder,
  conceptTerms,
  keepMaskFromVectors,
  type CompactGraph,
  type ConceptGraphIndex,
  type TermAnalyzer,
} from '../graph/index.ts';
import { layoutCorpus } from './corpusLayout.ts';
import type { RetrievalInput } from './engine.ts';
import { resolveParams } from './params.ts';

/**
 * The compact graph of `lexical` (a lexical-only index over exactly `input`'s chunks) with its semantic layer from
 * `input`'s sentence vectors, and the number of edges the walks keep. Throws when the input has no vectors or the
 * index was built for other chunks.
 */
export function semanticCompactGraph(
  input: RetrievalInput,
  analyzer: TermAnalyzer,
  lexical: Pick<ConceptGraphIndex, 'chunkIds' | 'table' | 'cooccurrence' | 'options'>,
): { graph: CompactGraph; keptEdges: number } {
  const dimension = input.dimension ?? 0;
  if (!input.sentenceVectors || !(dimension > 0)) {
    throw new Error('semantic layer: the input has no sentence vectors');
  }
  const params = resolveParams();
  const layout = layoutCorpus(input.chunks, input.sentences);
  const ids = lexical.chunkIds;
  if (ids.length !== layout.chunks.length || layout.chunks.some((c, i) => c.id !== ids[i])) {
    throw new Error('semantic layer: the concept graph was built for a different set of chunks');
  }
  // The sentences' terms one chunk at a time (the builder asks in order), and the vectors read where they are.
  const vectors = new ConceptVectorBuilder(
    lexical.table,
    layout.sentenceOffsets,
    (s) => conceptTerms(analyzer, layout.sentences[s].text, params.phrases),
    input.sentenceVectors,
    dimension,
    layout.sentenceSource,
  ).finish();
  const mask = keepMaskFromVectors(lexical.cooccurrence, vectors, dimension, lexical.options.thetaSem);
  const graph = compactGraphFromMask(lexical, dimension, mask);
  return { graph, keptEdges: graph.keptEdges };
}
