// Rebuilds the zhdocs held-out set: the Simplified Chinese React docs (reactjs/zh-hans.react.dev at a pinned
// commit): the Learn pages and the react / react-dom API reference that are translated, byte-identical, plus the
// license beside docs/.
// Usage: node test/bench/heldout/zhdocs/build.mjs <git dir of reactjs/zh-hans.react.dev> /work/heldout/zhdocs
import { copyLicenses, copyPages, flatName, openSet } from '../gitSource.mjs';

const COMMIT = 'f6cda05526ceff44b24588e9e0c2e2106d4588d4';
const FOLDERS = ['src/content/learn/', 'src/content/reference/react/', 'src/content/reference/react-dom/'];
// A page still in English (not yet translated) has almost no Han characters; 300 keeps every translated page,
// however code-heavy, and drops the untranslated ones.
const MIN_HAN = 300;

const set = openSet('test/bench/heldout/zhdocs/build.mjs', COMMIT);
const untranslated = [];
const { files, bytes } = copyPages(set, COMMIT, FOLDERS, (path, _size, read) => {
  if (!path.endsWith('.md')) return undefined;
  const han =
    read()
      .toString('utf8')
      .match(/\p{Script=Han}/gu)?.length ?? 0;
  if (han < MIN_HAN) {
    untranslated.push(path);
    return undefined;
  }
  // Named by the path under src/content/: learn/thinking-in-react.md → learn__thinking-in-react.md.
  return flatName(path.slice('src/content/'.length));
});
copyLicenses(set.gitDir, COMMIT, set.outDir, ['LICENSE-DOCS.md']);
process.stdout.write(`zhdocs: ${files} pages, ${bytes} bytes in ${set.docs}\n`);
process.stdout.write(
  `zhdocs: left out as untranslated (< ${MIN_HAN} Han characters): ${untranslated.join(', ')}\n`,
);
