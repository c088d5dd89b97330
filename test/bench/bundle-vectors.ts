// Bundle vector-precision benchmark: file size, read time (read + validate + decode), import time into
// fake-indexeddb and engine build time of two bundles of the same corpus, one with int8 vectors and one with
// Float32 vectors (`npm run cli -- index <docs> --out x.bundle [--vectors f32]`), then the retrieval change int8
// causes: context recall at 1000/3000/12000 tokens and recall@2/5/10 of supporting passages per mode, and how many
// questions get the identical top-10 under both.
// Usage: node --import tsx test/bench/bundle-vectors.ts <i8.bundle> <f32.bundle> <questions.jsonl> [limit]
//   questions.jsonl: one {"question", "answers": [...], "supporting"?: [external document ids]} per line (the
//   format of ../shared/bench/*/questions.jsonl); limit defaults to 500 questions. Question vectors come from the
//   bundles' own embedder, cached in .cache/embeddings.
import { readFile, stat } from 'node:fs/promises';
import process from 'node:process';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { IndexSnapshot } from '../../src/core/bundle/index.ts';
import { contextRecall, recallAtK } from '../../src/core/metrics.ts';
import { BASE_MODES } from '../../src/core/retrieval/types.ts';
import { readBundleFile } from '../../src/cli/bundleIo.ts';
import { cachedEmbedder } from '../../src/cli/embeddingCache.ts';
import { builtInSpecFor, createEmbedderFromSpec } from '../../src/cli/embedders.ts';
import { importBundle, snapshotToCorpus } from '../../src/store/bundleImport.ts';
import { openDatabase } from '../../src/store/db.ts';
import { loadEngine } from '../../src/services/library/engine.ts';

const BUDGETS = [1000, 3000, 12000] as const;
const RECALL_KS = [2, 5, 10] as const;
const USAGE =
  'usage: node --import tsx test/bench/bundle-vectors.ts <i8.bundle> <f32.bundle> <questions.jsonl> [limit]';

interface BenchQuestion {
  question: string;
  answers: string[];
  supporting?: string[];
}

/** Top-10 chunk ids per question, per mode, of one bundle (compared across the two bundles at the end). */
type Rankings = Map<string, string[][]>;

async function readQuestions(path: string, limit: number): Promise<BenchQuestion[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim());
  return lines.slice(0, limit).map((line, i) => {
    const q = JSON.parse(line) as Partial<BenchQuestion>;
    if (typeof q.question !== 'string' || !Array.isArray(q.answers)) {
      throw new Error(
        `bundle-vectors bench: ${path} line ${i + 1} needs "question" (string) and "answers" (array)`,
      );
    }
    return { question: q.question, answers: q.answers, supporting: q.supporting };
  });
}

/** Both bundles must hold the same corpus with the same embedder, or the comparison means nothing. */
function checkComparable(i8: IndexSnapshot, f32: IndexSnapshot, i8Path: string, f32Path: string): void {
  if (!i8.embedder || !f32.embedder) {
    throw new Error(
      `bundle-vectors bench: ${!i8.embedder ? i8Path : f32Path} has no vectors (built lexical only)`,
    );
  }
  if (i8.embedder.id !== f32.embedder.id || i8.embedder.dimension !== f32.embedder.dimension) {
    throw new Error(
      `bundle-vectors bench: the bundles use different embedders (${i8.embedder.id}/${i8.embedder.dimension} in ` +
        `${i8Path}, ${f32.embedder.id}/${f32.embedder.dimension} in ${f32Path})`,
    );
  }
  const ids = (s: IndexSnapshot) =>
    s.chunks
      .map((c) => c.id)
      .sort()
      .join('\n');
  if (ids(i8) !== ids(f32)) {
    throw new Error(
      `bundle-vectors bench: ${i8Path} and ${f32Path} hold different chunks (not the same corpus)`,
    );
  }
}

async function measureBundle(
  label: string,
  path: string,
  snapshot: IndexSnapshot,
  readSeconds: number,
  questions: BenchQuestion[],
  questionVectors: Float32Array,
  dimension: number,
): Promise<Rankings> {
  const size = (await stat(path)).size;
  const bytes = new Uint8Array(await readFile(path));
  let t = performance.now();
  const db = openDatabase(`bench-${label}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  await importBundle(db, bytes);
  const importSeconds = (performance.now() - t) / 1000;
  db.close();
  t = performance.now();
  const engine = loadEngine(snapshotToCorpus(snapshot));
  const engineSeconds = (performance.now() - t) / 1000;
  console.log(
    `${label}: ${(size / 1048576).toFixed(2)} MB; read+validate+decode ${readSeconds.toFixed(2)} s; ` +
      `import into fake-indexeddb ${importSeconds.toFixed(2)} s; engine build ${engineSeconds.toFixed(1)} s; ` +
      JSON.stringify(engine.stats()),
  );

  const external = new Map(snapshot.documents.map((d) => [d.id, d.externalId ?? d.id]));
  const rankings: Rankings = new Map();
  for (const mode of BASE_MODES) {
    const recallAtBudget = new Map<number, number>(BUDGETS.map((b) => [b, 0]));
    const recall = new Map<number, number>(RECALL_KS.map((k) => [k, 0]));
    let labelled = 0;
    const tops: string[][] = [];
    questions.forEach((q, i) => {
      const vector = questionVectors.subarray(i * dimension, (i + 1) * dimension);
      const hits = engine.search({ text: q.question, vector }, mode, BUDGETS[BUDGETS.length - 1]);
      tops.push(hits.slice(0, 10).map((h) => h.chunkId));
      for (const budget of BUDGETS) {
        // The ranked prefix that fits the smaller budget (the engine cuts the same way).
        let used = 0;
        const texts: string[] = [];
        for (const h of hits) {
          if (used + h.tokens > budget) break;
          used += h.tokens;
          texts.push(h.text);
        }
        recallAtBudget.set(budget, recallAtBudget.get(budget)! + contextRecall(texts.join('\n'), q.answers));
      }
      // recall@k is undefined without supporting passages: such questions are left out of its average.
      if (q.supporting?.length) {
        labelled++;
        const docs = hits.map((h) => external.get(h.docId) ?? h.docId);
        for (const k of RECALL_KS) recall.set(k, recall.get(k)! + recallAtK(docs, q.supporting, k));
      }
    });
    rankings.set(mode, tops);
    const n = questions.length;
    const cr = BUDGETS.map((b) => `CR@${b} ${(recallAtBudget.get(b)! / n).toFixed(3)}`).join(' ');
    const rk = labelled
      ? '  ' +
        RECALL_KS.map((k) => `R@${k} ${(recall.get(k)! / labelled).toFixed(3)}`).join(' ') +
        ` (${labelled} labelled)`
      : '';
    console.log(`  ${mode.padEnd(8)} ${cr}${rk}`);
  }
  return rankings;
}

async function main(): Promise<void> {
  const [i8Path, f32Path, questionsPath, limitArg] = process.argv.slice(2);
  if (!i8Path || !f32Path || !questionsPath) throw new Error(USAGE);
  const limit = Number(limitArg ?? 500);
  if (!(limit >= 1)) throw new Error(`bundle-vectors bench: limit must be a number ≥ 1, got ${limitArg}`);
  const questions = await readQuestions(questionsPath, limit);

  const snapshots: { label: string; path: string; snapshot: IndexSnapshot; readSeconds: number }[] = [];
  for (const [label, path] of [
    ['i8', i8Path],
    ['f32', f32Path],
  ] as const) {
    const t = performance.now();
    const snapshot = await readBundleFile(path);
    snapshots.push({ label, path, snapshot, readSeconds: (performance.now() - t) / 1000 });
  }
  checkComparable(snapshots[0].snapshot, snapshots[1].snapshot, i8Path, f32Path);

  // Only the built-in model is loaded on a bundle's word (never a URL or endpoint the file names).
  const bundleEmbedder = snapshots[0].snapshot.embedder!.id;
  const spec = builtInSpecFor(bundleEmbedder);
  if (!spec)
    throw new Error(
      `bundle-vectors: the bundles were built with ${bundleEmbedder}; only use-lite@1 is supported`,
    );
  const embedder = cachedEmbedder(await createEmbedderFromSpec(spec));
  try {
    const questionVectors = await embedder.embed(questions.map((q) => q.question));
    console.log(`${questions.length} questions of ${questionsPath}; embedder ${embedder.id}`);
    const rankings: Rankings[] = [];
    for (const s of snapshots) {
      rankings.push(
        await measureBundle(
          s.label,
          s.path,
          s.snapshot,
          s.readSeconds,
          questions,
          questionVectors,
          embedder.dimension,
        ),
      );
    }
    for (const mode of BASE_MODES) {
      const a = rankings[0].get(mode)!;
      const b = rankings[1].get(mode)!;
      const same = a.filter(
        (top, i) => top.length === b[i].length && top.every((id, j) => id === b[i][j]),
      ).length;
      const overlap =
        a.reduce(
          (sum, top, i) => sum + top.filter((id) => b[i].includes(id)).length / Math.max(1, top.length),
          0,
        ) / a.length;
      console.log(
        `${mode}: identical top-10 for ${same}/${a.length} questions; mean top-10 overlap ` +
          `${(overlap * 100).toFixed(1)}%`,
      );
    }
  } finally {
    await embedder.dispose?.();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
