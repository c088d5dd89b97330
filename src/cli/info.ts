// `npm run cli -- info <x.bundle> [--json] [--concepts N]`: validates a bundle completely (every part's length and
// SHA-256, the manifest, cross-layer consistency) and prints its manifest: versions, embedder, parameters, counts,
// parts. With --concepts N, the library's N subjects (top concepts by global PageRank, core/retrieval/subjects.ts) and
// the chunks each was kept for: what the library is about (the Graph view's first picture), as `{term, chunks}`
// objects with --json.
import { createReadStream } from 'node:fs';
import process from 'node:process';
import { readBundle, snapshotFromBundle, isBundleError, type IndexSnapshot } from '../core/bundle/index.ts';
import { conceptMap } from '../core/retrieval/index.ts';
import { openLibrary } from '../services/library/questionLibrary.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { bundleFileSize, formatBytes } from './bundleIo.ts';
import { bundleCommandArgs, wholeNumberOption } from './bundleCommand.ts';

const USAGE = 'usage: npm run cli -- info <x.bundle> [--json] [--concepts N]\n';

/** The library's `n` subjects (top concepts by global PageRank, subjects.ts), with the chunks each was kept for. */
export function topConcepts(snapshot: IndexSnapshot, n: number): Array<{ term: string; chunks: number }> {
  const library = openLibrary(snapshotToCorpus(snapshot));
  const { engine } = library;
  return conceptMap(engine.graph, { limit: n, edges: 0 }, (limit) => engine.subjectScores(limit)).nodes.map(
    (node) => ({
      term: node.term,
      chunks: node.chunks,
    }),
  );
}

export async function run(args: string[]): Promise<number> {
  const parsed = bundleCommandArgs('info', USAGE, args, { concepts: { type: 'string' } });
  if (typeof parsed === 'number') return parsed;
  const { values, path } = parsed;
  // Arguments are checked before the bundle is read.
  const conceptCount = wholeNumberOption('info', 'concepts', values.concepts, 0);
  if (conceptCount === null) return 2;
  let size: number;
  try {
    size = await bundleFileSize(path);
  } catch (e) {
    process.stderr.write(`info: ${(e as Error).message.replace(/^bundle file /, '')}\n`);
    return 1;
  }
  const started = performance.now();
  try {
    const read = await readBundle(createReadStream(path, { highWaterMark: 1 << 20 }), { totalBytes: size });
    const snapshot = snapshotFromBundle(read); // cross-layer checks too: "valid" only for a bundle that imports
    const seconds = (performance.now() - started) / 1000;
    const m = read.manifest;
    if (conceptCount > 0) {
      const top = topConcepts(snapshot, conceptCount);
      if (values.json) process.stdout.write(`${JSON.stringify(top, null, 2)}\n`);
      else
        process.stdout.write(
          `${top.map((c, i) => `${String(i + 1).padStart(4)}  ${c.term}  (${c.chunks} chunks)`).join('\n')}\n`,
        );
      return 0;
    }
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ file: path, bytes: size, valid: true, seconds, manifest: m }, null, 2)}\n`,
      );
      return 0;
    }
    const lines = [
      `${path}: valid ConceptRAG bundle (format ${m.formatVersion}), ${formatBytes(size)}, checked in ${seconds.toFixed(2)} s`,
      `app version   ${m.appVersion}`,
      `created       ${m.createdAt}`,
      `embedder      ${m.embedder ? `${m.embedder.id} (dimension ${m.embedder.dimension})` : 'none (lexical layer only)'}`,
      `parameters    ${JSON.stringify(m.params)}`,
      `counts        ${Object.entries(m.counts)
        .filter(([k]) => !k.includes('.'))
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      '',
      `${'part'.padEnd(26)}${'kind'.padEnd(12)}${'encoding'.padEnd(10)}${'records'.padStart(9)}${'stored'.padStart(12)}${'raw'.padStart(12)}  sha256`,
      ...m.parts.map(
        (p) =>
          `${p.name.padEnd(26)}${p.kind.padEnd(12)}${p.encoding.padEnd(10)}${String(p.count).padStart(9)}${formatBytes(p.length).padStart(12)}${formatBytes(p.rawLength).padStart(12)}  ${p.sha256.slice(0, 16)}…`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (isBundleError(error)) {
      if (values.json)
        process.stdout.write(
          `${JSON.stringify({ file: path, valid: false, kind: error.kind, error: error.message })}\n`,
        );
      process.stderr.write(`info: ${path}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
