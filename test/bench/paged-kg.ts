// The KG and atomic modes over a bundle's pages read by ranges from a file (what ?bundle= and Open bundle
// read-only… do in the tab, here in Node): the bundle (cli index --pages --kg [--atomic]) is opened, the layer a mode
// reads is read whole (the KG's two table parts, or the atomic questions' one), then each question is asked in `kg`,
// `hybrid`, `atomic` and the default mode, each mode over a freshly opened bundle. Printed: the bytes and time of
// the layer's read, and per question the bytes, rounds of reads and wall time, with the load average. The layers'
// replies were scripted when the bundle was built, so this measures reading, not answers.
// With --whole, the same questions over the bundle read whole (cli ask --whole's path), for comparison.
// Usage: node --import tsx test/bench/paged-kg.ts <pages+kg.bundle> --questions <qa.jsonl> [--count 20]
//        [--budget 6000] [--modes kg,hybrid,atomic,ppr] [--whole]
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { pagedAtomicLoader, pagedKgLoader } from '../../src/services/library/readOnlyBundle.ts';
import { askPaged } from '../support/askOver.ts';
import { parseQuestionMode, type QuestionMode } from '../../src/services/questions/modeRegistry.ts';
import { parseQaSet } from '../../src/services/questions/qaSet.ts';
import { loadText, megabytes, quantile } from './lib/report.ts';

const USAGE =
  'usage: node --import tsx test/bench/paged-kg.ts <pages+kg.bundle> --questions <qa.jsonl> [--count 20] ' +
  '[--budget 6000] [--modes kg,hybrid,atomic,ppr]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    questions: { type: 'string' },
    count: { type: 'string', default: '20' },
    budget: { type: 'string', default: '6000' },
    modes: { type: 'string', default: 'kg,hybrid,ppr' },
    whole: { type: 'boolean', default: false },
  },
});
const count = Number(values.count);
const budget = Number(values.budget);
if (positionals.length !== 1 || !values.questions || !(count >= 1) || !(budget >= 1)) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const modes = values.modes
  .split(',')
  .map((m) => parseQuestionMode(m, { allowDefault: true }).name as QuestionMode);
const bundle = positionals[0];
const load = loadText;
const mb = (bytes: number) => megabytes(bytes, 3);
const items = parseQaSet(values.questions, readFileSync(values.questions, 'utf8')).items.slice(0, count);

process.stdout.write(`${bundle}, ${items.length} questions, budget ${budget}; load ${load()}\n`);
for (const mode of modes) {
  const source = await FileRangeSource.open(bundle);
  try {
    const t0 = performance.now();
    const paged = await openPagedBundle(source, createTermAnalyzer());
    if (!paged) throw new Error(`${bundle} has no pages to read by ranges`);
    const opening = source.bytesRead;
    const openMs = performance.now() - t0;
    const kgMode = mode === 'kg' || mode === 'hybrid';
    const kg = kgMode ? pagedKgLoader(paged) : undefined;
    if (kgMode && !kg) throw new Error(`${bundle} holds no KG`);
    const atomic = mode === 'atomic' ? pagedAtomicLoader(paged) : undefined;
    if (mode === 'atomic' && !atomic) throw new Error(`${bundle} holds no atomic questions`);
    let kgLine = '';
    if (atomic) {
      // The atomic questions' part read, checked and decoded, then the loader's own read and index.
      const before = source.bytesRead;
      const t = performance.now();
      await paged.layerTables(['atomicQuestions']);
      const readMs = performance.now() - t;
      const bytes = source.bytesRead - before;
      const t2 = performance.now();
      const index = await atomic();
      kgLine =
        `atomic questions read ${mb(bytes)} MB (${((100 * bytes) / source.size).toFixed(2)}% of the bundle) and ` +
        `decoded in ${readMs.toFixed(0)} ms; read and indexed by the loader in ${(performance.now() - t2).toFixed(0)} ` +
        `ms, ${index?.size ?? 0} questions`;
    }
    if (kg) {
      // The KG's two parts read, checked and decoded (as pagedKgLoader reads them), then the loader's own read and
      // index, as the first KG question pays for it.
      const before = source.bytesRead;
      const t = performance.now();
      await paged.layerTables(['kgEntities', 'kgRelations']);
      const readMs = performance.now() - t;
      const bytes = source.bytesRead - before;
      const t2 = performance.now();
      const index = await kg();
      kgLine =
        `KG read ${mb(bytes)} MB (${((100 * bytes) / source.size).toFixed(2)}% of the bundle) and decoded in ` +
        `${readMs.toFixed(0)} ms; read and indexed by the loader in ${(performance.now() - t2).toFixed(0)} ms, ` +
        `${index.size} entities`;
    }
    process.stdout.write(
      `${mode}: bundle ${mb(source.size)} MB; opened ${mb(opening)} MB in ${openMs.toFixed(0)} ms; ${kgLine}; load ${load()}\n`,
    );
    const rows: Array<{ ms: number; bytes: number; rounds: number; shown: number }> = [];
    for (const item of items) {
      const before = source.bytesRead;
      const t = performance.now();
      const result = await askPaged(
        paged.library,
        { question: item.question, mode, budget },
        { ...(kg ? { kg } : {}), ...(atomic ? { atomic } : {}) },
      );
      rows.push({
        ms: performance.now() - t,
        bytes: source.bytesRead - before,
        rounds: result.reads.rounds,
        shown: result.evidence.length,
      });
    }
    const later = rows.slice(1);
    const col = (f: (r: (typeof rows)[number]) => number, q: number, list = later) =>
      list.length ? quantile(list.map(f), q) : NaN;
    process.stdout.write(
      `${mode}: first question ${mb(rows[0].bytes)} MB in ${rows[0].rounds} rounds, ${rows[0].ms.toFixed(0)} ms; ` +
        `later p50 / max ${mb(col((r) => r.bytes, 0.5))} / ${mb(Math.max(...later.map((r) => r.bytes)))} MB, ` +
        `rounds p50 ${col((r) => r.rounds, 0.5)}, wall p50 / p90 ${col((r) => r.ms, 0.5).toFixed(0)} / ` +
        `${col((r) => r.ms, 0.9).toFixed(0)} ms, passages p50 ${col((r) => r.shown, 0.5, rows)}; load ${load()}\n`,
    );
  } finally {
    await source.close();
  }
}

if (values.whole) {
  // The bundle read whole and opened in memory (cli ask --whole), then the same questions in each mode.
  const { readBundleFile } = await import('../../src/cli/bundleIo.ts');
  const { askSnapshot } = await import('../../src/cli/ask.ts');
  const { openLibrary } = await import('../../src/services/library/questionLibrary.ts');
  const { snapshotToCorpus } = await import('../../src/store/bundleImport.ts');
  const t = performance.now();
  const snapshot = await readBundleFile(bundle);
  const library = openLibrary(snapshotToCorpus(snapshot));
  process.stdout.write(
    `whole: read and opened in ${(performance.now() - t).toFixed(0)} ms; load ${load()}\n`,
  );
  for (const mode of modes) {
    const ms: number[] = [];
    for (const item of items) {
      const t1 = performance.now();
      await askSnapshot(snapshot, item.question, { mode, budget, library });
      ms.push(performance.now() - t1);
    }
    const later = ms.slice(1);
    process.stdout.write(
      `whole ${mode}: first question ${ms[0].toFixed(0)} ms (engine and KG built on first use); later p50 / p90 ` +
        `${quantile(later, 0.5).toFixed(0)} / ${quantile(later, 0.9).toFixed(0)} ms; load ${load()}\n`,
    );
  }
}
