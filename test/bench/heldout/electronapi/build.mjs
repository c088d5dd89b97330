// Rebuilds the electronapi held-out set: Electron's whole API reference (docs/api/**/*.md of electron/electron at a
// pinned commit: modules, classes and structures), byte-identical, plus the license beside docs/.
// Usage: node test/bench/heldout/electronapi/build.mjs <git dir of electron/electron> /work/heldout/electronapi
import { copyLicenses, copyPages, flatName, openSet } from '../gitSource.mjs';

const COMMIT = '96f3996d8d3ce6e2fcfb86326fc4b953b53936fb';

const set = openSet('test/bench/heldout/electronapi/build.mjs', COMMIT);
// Named by the path under docs/: docs/api/structures/cookie.md → api__structures__cookie.md.
const { files, bytes } = copyPages(set, COMMIT, ['docs/api/'], (path) =>
  path.endsWith('.md') ? flatName(path.slice('docs/'.length)) : undefined,
);
copyLicenses(set.gitDir, COMMIT, set.outDir, ['LICENSE']);
process.stdout.write(`electronapi: ${files} pages, ${bytes} bytes in ${set.docs}\n`);
