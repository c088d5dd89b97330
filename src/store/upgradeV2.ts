// The schema v1 → v2 upgrade (run by Dexie inside the version-change transaction, so it is all or nothing): the
// stored form of src/store/storedForm.ts applied to a library written by v1. Chunk and sentence text that the
// document text gives back is dropped, Float32 sentence vectors become int8 with a per-row scale, and the whole
// serialized concept graph becomes its keep-mask (or nothing, for a lexical-only graph, rebuilt on load).
import type { Transaction } from 'dexie';
import { compactGraph, isCompactGraph, isConceptTableGraph } from '../core/graph/index.ts';
import type { DocumentRecord } from '../core/types.ts';
import type { GraphRecord, IndexMeta, StoredChunk, StoredSentence, VectorRecord } from './records.ts';
import { vectorRecord } from './storedForm.ts';

function dropDerivableText(record: StoredChunk | StoredSentence, docText: string | undefined): void {
  if (record.text !== undefined && docText?.slice(record.start, record.end) === record.text) {
    delete record.text;
  }
}

export async function upgradeToV2(tx: Transaction): Promise<void> {
  // Only the texts are held (a few MB even for a large library); records are rewritten one at a time.
  const texts = new Map<string, string>();
  await tx.table<DocumentRecord, string>('documents').each((d) => {
    texts.set(d.id, d.text);
  });
  await tx
    .table<StoredChunk, string>('chunks')
    .toCollection()
    .modify((c) => dropDerivableText(c, texts.get(c.docId)));
  await tx
    .table<StoredSentence, string>('sentences')
    .toCollection()
    .modify((s) => dropDerivableText(s, texts.get(s.docId)));
  await tx
    .table<VectorRecord, string>('vectors')
    .toCollection()
    .modify((v) => {
      if (v.encoding === 'i8') return;
      const floats = new Float32Array(v.data);
      const dimension = v.count > 0 ? floats.length / v.count : v.dimension;
      Object.assign(v, vectorRecord(v.docId, v.embedderId, dimension, floats));
    });
  const graphs = tx.table<GraphRecord, string>('graph');
  const stored = await graphs.get('concept');
  if (stored && !isCompactGraph(stored.graph) && !isConceptTableGraph(stored.graph)) {
    // A v1 graph with a semantic layer keeps its θsem decisions as a mask; a lexical one is rebuilt on load.
    let compact;
    try {
      compact = stored.graph.semantic ? compactGraph(stored.graph) : undefined;
    } catch {
      // A semantic layer without cosines or mask cannot be compacted: the graph is rebuilt on load instead.
      compact = undefined;
    }
    if (compact) await graphs.put({ ...stored, graph: compact });
    else await graphs.delete('concept');
  }
  const metas = tx.table<IndexMeta, string>('meta');
  const meta = await metas.get('index');
  if (meta) await metas.put({ ...meta, schemaVersion: 2 });
}
