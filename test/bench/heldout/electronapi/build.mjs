// Rebuilds the electronapi held-out set: Electron's whole API reference (docs/api/**/*.md of electron/electron at a
// pinned commit: modules, classes and structures), byte-identical, plus the license beside docs/.
// Usage: node test/bench/heldout/electronapi/build.mjs <git dir of electron/electron> /work/heldout/electronapi
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

const COMMIT = '96f3996d8d3ce6e2fcfb86326fc4b953b53936fb';

const { gitDir, outDir } = parseArgs('test/bench/heldout/electronapi/build.mjs');
checkCommit(gitDir, COMMIT);
const docs = join(outDir, 'docs');
freshDir(docs);
let files = 0;
let bytes = 0;
for (const { path } of listFiles(gitDir, COMMIT, 'docs/api/')) {
  if (!path.endsWith('.md')) continue;
  const body = readBlob(gitDir, COMMIT, path);
  // Named by the path under docs/: docs/api/structures/cookie.md → api__structures__cookie.md.
  writeFileSync(join(docs, flatName(path.slice('docs/'.length))), body);
  files += 1;
  bytes += body.length;
}
copyLicenses(gitDir, COMMIT, outDir, ['LICENSE']);
process.stdout.write(`electronapi: ${files} pages, ${bytes} bytes in ${docs}\n`);
