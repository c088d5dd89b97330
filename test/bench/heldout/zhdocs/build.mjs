// Rebuilds the zhdocs held-out set: the Simplified Chinese React docs (reactjs/zh-hans.react.dev at a pinned
// commit): the Learn pages and the react / react-dom API reference that are translated, byte-identical, plus the
// license beside docs/.
// Usage: node test/bench/heldout/zhdocs/build.mjs <git dir of reactjs/zh-hans.react.dev> /work/heldout/zhdocs
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

const COMMIT = 'f6cda05526ceff44b24588e9e0c2e2106d4588d4';
const FOLDERS = ['src/content/learn/', 'src/content/reference/react/', 'src/content/reference/react-dom/'];
// A page still in English (not yet translated) has almost no Han characters; 300 keeps every translated page,
// however code-heavy, and drops the untranslated ones.
const MIN_HAN = 300;

const { gitDir, outDir } = parseArgs('test/bench/heldout/zhdocs/build.mjs');
checkCommit(gitDir, COMMIT);
const docs = join(outDir, 'docs');
freshDir(docs);
let files = 0;
let bytes = 0;
const untranslated = [];
for (const folder of FOLDERS) {
  for (const { path } of listFiles(gitDir, COMMIT, folder)) {
    if (!path.endsWith('.md')) continue;
    const body = readBlob(gitDir, COMMIT, path);
    const han = body.toString('utf8').match(/\p{Script=Han}/gu)?.length ?? 0;
    if (han < MIN_HAN) {
      untranslated.push(path);
      continue;
    }
    // Named by the path under src/content/: learn/thinking-in-react.md → learn__thinking-in-react.md.
    writeFileSync(join(docs, flatName(path.slice('src/content/'.length))), body);
    files += 1;
    bytes += body.length;
  }
}
copyLicenses(gitDir, COMMIT, outDir, ['LICENSE-DOCS.md']);
process.stdout.write(`zhdocs: ${files} pages, ${bytes} bytes in ${docs}\n`);
process.stdout.write(
  `zhdocs: left out as untranslated (< ${MIN_HAN} Han characters): ${untranslated.join(', ')}\n`,
);
