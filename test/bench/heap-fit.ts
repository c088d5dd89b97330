// The heap-per-MB-of-text table and its fit, from the --json files of `npm run bench:drop` runs: per layer
// (lexical: --lexical; semantic: --until embedded) and per realm (the tab as a whole at its highest sample, and
// each realm's own peak), a least-squares line peak ≈ a + b·MB of text, and the same slope raised so that no run
// lies above it (what src/ui/estimates/memoryEstimate.ts keeps: an estimate must not be low).
// Usage: node --import tsx test/bench/heap-fit.ts <run.json>...
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import process from 'node:process';

interface Run {
  input: string;
  until: string;
  lexicalOnly?: boolean;
  textMB: number;
  peakHeapMB: number;
  realmPeakMB: Record<string, number>;
  loadAverage: { start: string; end: string };
  commit: string;
  counts: { sentences: number };
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node --import tsx test/bench/heap-fit.ts <run.json>...');
  process.exit(1);
}
const runs = await Promise.all(
  files.map(async (f) => ({ file: basename(f), run: JSON.parse(await readFile(f, 'utf8')) as Run })),
);
const layerOf = (r: Run) => (r.lexicalOnly ? 'lexical' : r.until === 'embedded' ? 'semantic' : 'mixed');
const REALMS = ['total', 'query.worker', 'ingest.worker', 'embed.worker', 'parse.worker', 'page'];
const valueOf = (r: Run, realm: string) => (realm === 'total' ? r.peakHeapMB : (r.realmPeakMB[realm] ?? 0));

console.log(
  `| layer | run | text MB | sentences | text B/sentence | ${REALMS.map((r) => `${r} MB`).join(' | ')} | load start → end | commit |`,
);
console.log(
  `| ${Array(8 + REALMS.length - 1)
    .fill('---')
    .join(' | ')} |`,
);
const sorted = [...runs].sort((a, b) =>
  layerOf(a.run) === layerOf(b.run) ? a.run.textMB - b.run.textMB : layerOf(a.run) < layerOf(b.run) ? -1 : 1,
);
for (const { file, run } of sorted) {
  const perSentence =
    run.counts.sentences > 0 ? Math.round((run.textMB * 2 ** 20) / run.counts.sentences) : 0;
  console.log(
    `| ${layerOf(run)} | ${file.replace(/\.json$/, '')} | ${run.textMB} | ${run.counts.sentences} | ${perSentence} | ` +
      `${REALMS.map((realm) => valueOf(run, realm) || '–').join(' | ')} | ${run.loadAverage.start} → ` +
      `${run.loadAverage.end} | ${run.commit} |`,
  );
}

/** Least squares y = a + b·x; the raised a puts every point on or below the line. */
function fit(points: { x: number; y: number }[]): { a: number; b: number; raisedA: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const b = sxx > 0 ? points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx : 0;
  const a = my - b * mx;
  return { a, b, raisedA: Math.max(...points.map((p) => p.y - b * p.x)) };
}

console.log('\n| layer | realm | runs | fit: peak MB ≈ a + b·text MB | raised (no run above) |');
console.log('| --- | --- | --- | --- | --- |');
for (const layer of ['lexical', 'semantic']) {
  const of = runs.filter(({ run }) => layerOf(run) === layer);
  if (of.length < 2) continue;
  for (const realm of REALMS) {
    const points = of.map(({ run }) => ({ x: run.textMB, y: valueOf(run, realm) })).filter((p) => p.y > 0);
    if (points.length < 2) continue;
    const { a, b, raisedA } = fit(points);
    console.log(
      `| ${layer} | ${realm} | ${points.length} | ${a.toFixed(0)} + ${b.toFixed(1)}·MB | ` +
        `${raisedA.toFixed(0)} + ${b.toFixed(1)}·MB |`,
    );
  }
}
