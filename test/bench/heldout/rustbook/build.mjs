// Rebuilds the rustbook held-out set: every chapter page of "The Rust Programming Language" (src/*.md of
// rust-lang/book at a pinned commit), byte-identical, plus the licenses beside docs/.
// Usage: node test/bench/heldout/rustbook/build.mjs <git dir of rust-lang/book> /work/heldout/rustbook
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkCommit,
  copyLicenses,
  flatName,
  freshDir,
  listFiles,
  parseArgs,
  readBlob,
} from '../gitSource.mjs';

const COMMIT = '917544888a55e4da7109bdba8c88c893c0da70f4';
// The table of contents and the title page are navigation, not chapters.
const SKIP = new Set(['src/SUMMARY.md', 'src/title-page.md']);
const MIN_BYTES = 300;

const { gitDir, outDir } = parseArgs('test/bench/heldout/rustbook/build.mjs');
checkCommit(gitDir, COMMIT);
const docs = join(outDir, 'docs');
freshDir(docs);
let files = 0;
let bytes = 0;
for (const { path, size } of listFiles(gitDir, COMMIT, 'src/')) {
  if (!/^src\/[^/]+\.md$/.test(path) || SKIP.has(path) || size < MIN_BYTES) continue;
  const body = readBlob(gitDir, COMMIT, path);
  writeFileSync(join(docs, flatName(path.slice('src/'.length))), body);
  files += 1;
  bytes += body.length;
}
copyLicenses(gitDir, COMMIT, outDir, ['COPYRIGHT', 'LICENSE-MIT', 'LICENSE-APACHE']);
process.stdout.write(`rustbook: ${files} pages, ${bytes} bytes in ${docs}\n`);
