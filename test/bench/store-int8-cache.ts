// Retrieval with the store's int8 sentence vectors, measured with the existing bench: copies an embedding cache
// (src/cli/embeddingCache.ts format) with every sentence row of the corpus put through the store's codec
// (src/store/storedForm.ts: quantizeInt8 with a per-row scale, dequantized and re-normalized), question rows left
// exact (the app embeds a question when it is asked; it is never stored). Then run
//   npm run cli -- bench ... --cache <out dir>
// and compare with a run on the original cache.
// Usage: node --import tsx test/bench/store-int8-cache.ts --corpus c.jsonl --questions q.jsonl --in dir --out dir
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { loadedVectors, vectorRecord } from '../../src/store/storedForm.ts';

const args = process.argv.slice(2);
const option = (name: string): string => {
  const at = args.indexOf(name);
  if (at < 0) throw new Error(`store-int8-cache: ${name} is required`);
  return args[at + 1];
};
const embedderId = args.includes('--embedder-id') ? option('--embedder-id') : 'use-lite@1';
const [inDir, outDir] = [option('--in'), option('--out')];
const corpus = await prepareCorpus(option('--corpus'), 1200);
const questions = await loadQuestions(option('--questions'));

const keyOf = (text: string): string =>
  createHash('sha256').update(embedderId).update('\0').update(text).digest('hex');
const sentenceKeys = new Set(corpus.sentences.map((s) => keyOf(s.text)));
const questionKeys = new Set(questions.map((q) => keyOf(q.question)));

mkdirSync(outDir, { recursive: true });
for (const name of readdirSync(inDir).filter((n) => n.endsWith('.bin'))) {
  const bytes = readFileSync(join(inDir, name));
  const dim = bytes.readUInt32LE(8);
  const record = 32 + dim * 4;
  let quantized = 0;
  let kept = 0;
  for (let at = 16; at + record <= bytes.length; at += record) {
    const key = bytes.subarray(at, at + 32).toString('hex');
    // A text both a question and a sentence stays exact: the question side must not change.
    if (!sentenceKeys.has(key) || questionKeys.has(key)) {
      kept += 1;
      continue;
    }
    const row = new Float32Array(
      bytes.buffer.slice(bytes.byteOffset + at + 32, bytes.byteOffset + at + record),
    );
    const back = loadedVectors(vectorRecord('d', embedderId, dim, row));
    Buffer.from(back.buffer).copy(bytes, at + 32);
    quantized += 1;
  }
  writeFileSync(join(outDir, name), bytes);
  console.log(`${name}: ${quantized} sentence rows through the int8 store codec, ${kept} rows kept exact`);
}
