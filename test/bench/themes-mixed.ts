// Issue 48, Must show: a mixed library's themes separate its sources, and a themes answer by ranges reads little.
//
//   node --import tsx test/bench/themes-mixed.ts
//
// 1. A mixed library: the Vue docs (a manual), Rust by Example (a book) and the first 800 passages of 2Wiki
//    (encyclopedia text), from ../shared/bench. For each of its top 10 themes, the share of its chunks from each
//    source; a theme is "pure" when one source holds 90% or more of its chunks.
// 2. The Vue docs written as a paged bundle (`cli index --pages`, with themes.json), read by ranges from the file:
//    "What is this about?" through ask(), with the bytes read (the themes part, then the passages' records) beside
//    the bundle's size.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { ask } from '../../src/services/source/ask.ts';
import { openSource } from '../../src/services/source/openSource.ts';
import { pagedThemesLoader, themesBytesRead } from '../../src/services/library/bundleThemes.ts';
import { themesOfLibrary } from '../../src/services/themes/themesOf.ts';
import { lexicalLibrary } from './lib/lexicalLibrary.ts';

const BENCH = join(import.meta.dirname, '../../../shared/bench');
const dir = join(tmpdir(), 'themes-mixed');
mkdirSync(dir, { recursive: true });
for (const file of readdirSync(join(BENCH, 'vuedocs/docs'))) {
  if (!existsSync(join(dir, `vue__${file}`)))
    copyFileSync(join(BENCH, 'vuedocs/docs', file), join(dir, `vue__${file}`));
}
for (const file of readdirSync(join(BENCH, 'docs-scale/docs')).filter(
  (f) => f.startsWith('rust-by-example__') && !f.endsWith('SUMMARY.md'),
)) {
  if (!existsSync(join(dir, file))) copyFileSync(join(BENCH, 'docs-scale/docs', file), join(dir, file));
}
const wiki = readFileSync(join(BENCH, '2wikimultihopqa/corpus.jsonl'), 'utf8')
  .split('\n')
  .slice(0, 800)
  .join('\n');
writeFileSync(join(dir, 'wiki__2wiki-800.jsonl'), `${wiki}\n`);

const { corpus, library } = await lexicalLibrary(dir);
const sourceOf = (docId: string): string => {
  const name = library.documents.get(docId)?.sourceName ?? '';
  return name.startsWith('vue__')
    ? 'Vue docs'
    : name.startsWith('rust-by-example__')
      ? 'Rust by Example'
      : '2Wiki';
};
const themes = themesOfLibrary(library);
const perSource = new Map<string, number>();
for (const c of corpus.chunks) perSource.set(sourceOf(c.docId), (perSource.get(sourceOf(c.docId)) ?? 0) + 1);
process.stdout.write(
  `mixed library: ${corpus.documents.length} documents, ${corpus.chunks.length} chunks (${[...perSource].map(([s, n]) => `${s} ${n}`).join(', ')}), ${themes.themes.length} themes\n\n` +
    '| # | theme | chunks | Vue docs | Rust by Example | 2Wiki | pure |\n|---|---|---|---|---|---|---|\n',
);
// A theme's chunks by source: the themes hold chunk counts, so each theme's chunks are found again by assignment:
// its passages and key documents name its sources; the count by source uses the key documents' chunks.
let pure = 0;
const top = themes.themes.slice(0, 10);
top.forEach((t, i) => {
  const counts = new Map<string, number>();
  for (const doc of t.keyDocuments) counts.set(sourceOf(doc), (counts.get(sourceOf(doc)) ?? 0) + 1);
  for (const id of t.passages) {
    const doc = library.chunks.get(id)?.docId ?? '';
    counts.set(sourceOf(doc), (counts.get(sourceOf(doc)) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const share = (s: string) => `${Math.round((100 * (counts.get(s) ?? 0)) / total)}%`;
  const isPure = Math.max(...counts.values()) / total >= 0.9;
  if (isPure) pure++;
  process.stdout.write(
    `| ${i + 1} | ${t.label} | ${t.chunks} | ${share('Vue docs')} | ${share('Rust by Example')} | ${share('2Wiki')} | ${isPure ? 'yes' : 'no'} |\n`,
  );
});
process.stdout.write(
  `\n${pure}/${top.length} top themes draw 90% or more of their key documents and passages from one source\n`,
);

// 2. By ranges.
const bundlePath = join(dir, 'vue.bundle');
execSync(
  `node --import tsx src/cli/main.ts index ${join(BENCH, 'vuedocs/docs')} --embedder none --pages --quiet --out ${bundlePath}`,
  { cwd: join(import.meta.dirname, '../..'), stdio: 'ignore' },
);
const file = await FileRangeSource.open(bundlePath);
const opened = (await openPagedBundle(file, createTermAnalyzer()))!;
const source = openSource({ paged: opened.library, themes: pagedThemesLoader(opened)! });
const started = performance.now();
const result = await ask(source, { question: 'What is this about?', mode: 'ppr', budget: 3000 });
const ms = performance.now() - started;
const size = statSync(bundlePath).size;
const themeBytes = themesBytesRead.get(opened) ?? 0;
process.stdout.write(
  `\nby ranges (Vue docs bundle, ${(size / 2 ** 20).toFixed(2)} MB): "What is this about?" → ${result.themes?.themes.length ?? 0} themes, ` +
    `${result.evidence.length} passages in ${ms.toFixed(0)} ms; read ${themeBytes} bytes of themes.json + ` +
    `${result.reads?.bytes ?? 0} bytes of records in ${result.reads?.rounds ?? 0} rounds = ` +
    `${(((themeBytes + (result.reads?.bytes ?? 0)) / size) * 100).toFixed(2)}% of the bundle (after its open)\n`,
);
await file.close();
process.stdout.write(
  `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
