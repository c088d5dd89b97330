// A library with sentence vectors reopened around its stored keep-mask (RetrievalEngine.fromCompact) with word
// statistics per script (on by default): a mask whose concept table was chosen against the library's per-script
// counts is taken and answers as the engine built from scratch; one chosen with one N (a library stored before the
// parameter) is refused, so that the library is built again. A small fixture of Chinese and English notes, with a
// deterministic bag-of-words embedding (test/support/wordHashEmbedding.ts).
import { describe, expect, it } from 'vitest';
import { compactGraph, type CompactGraph } from '../../../src/core/graph/index.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { wordHashVector } from '../../support/wordHashEmbedding.ts';
import {
  chineseWords,
  ENGLISH_WITH_CANAL,
  englishWords,
  MIXED_QUESTIONS,
} from '../../support/mixedScripts.ts';

const DIM = 8;
const analyzer = createTermAnalyzer();

/** 30 English notes and 30 Chinese ones (one document each), their sentences embedded. */
async function mixedInput(): Promise<RetrievalInput> {
  const files: Array<[string, string]> = [];
  for (let i = 0; i < 30; i++) {
    const w = englishWords(i, ENGLISH_WITH_CANAL);
    files.push([
      `en-${i}.md`,
      `The ${w[0]} of ${w[1]} stands by the ${w[2]}. A ${w[3]} was built near the ${w[4]} in ${1700 + i}.`,
    ]);
  }
  for (let i = 0; i < 30; i++) {
    const w = chineseWords(i);
    files.push([`zh-${i}.md`, `第${i + 1}节：${w[0]}通过${w[1]}接收${w[2]}。并在${w[3]}变化时重新${w[4]}。`]);
  }
  const documents = [];
  for (const [name, text] of files)
    documents.push(...(await prepareFile(name, new TextEncoder().encode(text), { now: 0 })).documents);
  const chunks = documents.flatMap((d) => d.chunks);
  const sentences = documents.flatMap((d) => d.sentences);
  const vectors = new Float32Array(sentences.length * DIM);
  sentences.forEach((s, i) => vectors.set(wordHashVector(s.text, analyzer, DIM), i * DIM));
  return { chunks, sentences, sentenceVectors: vectors, dimension: DIM };
}

const QUESTIONS = MIXED_QUESTIONS;

describe('a stored keep-mask with word statistics per script', () => {
  it('is taken when its table was chosen per script, and answers as the engine built from scratch', async () => {
    const input = await mixedInput();
    const full = RetrievalEngine.build(input, analyzer);
    expect(full.stats().scriptChunks).toEqual({ other: 60, cjk: 30 });
    const compact = compactGraph(full.exportGraph()) as CompactGraph;
    const opened = RetrievalEngine.fromCompact(input, analyzer, compact);
    expect(opened).toBeDefined();
    for (const q of QUESTIONS)
      for (const mode of ['ppr', 'bm25', 'concept'])
        expect(opened!.search({ text: q }, mode, 1500)).toEqual(full.search({ text: q }, mode, 1500));
  });

  it('is refused when its table was chosen with one N (the library is built again)', async () => {
    const input = await mixedInput();
    const oneN = RetrievalEngine.build(input, analyzer, { scriptStatistics: false });
    const compact = compactGraph(oneN.exportGraph()) as CompactGraph;
    expect(RetrievalEngine.fromCompact(input, analyzer, compact)).toBeUndefined();
  });
});
