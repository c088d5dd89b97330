// Rebuilds the rustbook held-out set: every chapter page of "The Rust Programming Language" (src/*.md of
// rust-lang/book at a pinned commit), byte-identical, plus the licenses beside docs/.
// Usage: node test/bench/heldout/rustbook/build.mjs <git dir of rust-lang/book> /work/heldout/rustbook
import { copyLicenses, copyPages, flatName, openSet } from '../gitSource.mjs';

const COMMIT = '917544888a55e4da7109bdba8c88c893c0da70f4';
// The table of contents and the title page are navigation, not chapters.
const SKIP = new Set(['src/SUMMARY.md', 'src/title-page.md']);
const MIN_BYTES = 300;

const set = openSet('test/bench/heldout/rustbook/build.mjs', COMMIT);
const { files, bytes } = copyPages(set, COMMIT, ['src/'], (path, size) =>
  /^src\/[^/]+\.md$/.test(path) && !SKIP.has(path) && size >= MIN_BYTES
    ? flatName(path.slice('src/'.length))
    : undefined,
);
copyLicenses(set.gitDir, COMMIT, set.outDir, ['COPYRIGHT', 'LICENSE-MIT', 'LICENSE-APACHE']);
process.stdout.write(`rustbook: ${files} pages, ${bytes} bytes in ${set.docs}\n`);
