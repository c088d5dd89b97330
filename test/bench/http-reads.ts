// A paged bundle read over loopback HTTP in Node, as the query worker reads it (HttpRangeSource): the hits of N
// questions as a digest (the same digest as a file read gives: the answers do not depend on how bytes arrive), and
// the range requests, ranges, bytes and rounds they took, with the server answering several ranges a request
// (multipart, as nginx) or one (first). The first question is asked, then N - 1 others (question i·37 of the file).
// Usage: node --import tsx test/bench/http-reads.ts <x.bundle> <qa.jsonl> [N=30] [--multi-range multipart|first]
import { createHash } from 'node:crypto';
import { readFile, rm, symlink, mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import process from 'node:process';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { HttpRangeSource } from '../../src/services/bundleBytes/rangeSources.ts';
import { serveStatic, type MultiRangeMode } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';

const USAGE =
  'usage: node --import tsx test/bench/http-reads.ts <x.bundle> <qa.jsonl> [N=30] [--multi-range multipart|first]';

async function main(): Promise<void> {
  const [bundle, qa, n = '30'] = process.argv
    .slice(2)
    .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!bundle || !qa) throw new Error(USAGE);
  const count = Number(n);
  const multiRange = arg('multi-range', 'multipart') as MultiRangeMode;
  const dir = await mkdtemp(join(tmpdir(), 'conceptrag-http-reads-'));
  await symlink(resolve(bundle), join(dir, basename(bundle)));
  const server = await serveStatic(dir, { ranges: true, multiRange, log: true });
  try {
    const source = await HttpRangeSource.open(`${server.origin}/${basename(bundle)}`);
    if (!source) throw new Error(`http-reads: the server did not answer a range`);
    const opened = await openPagedBundle(source, createTermAnalyzer());
    if (!opened) throw new Error(`http-reads: ${bundle} has no pages`);
    const library = opened.library;
    // The block store's own account of where load() spent its time (a private field: this bench only reads it).
    const spent = (library as unknown as { store: { spent: Record<string, number> } }).store.spent;
    const spentLine = (before: Record<string, number>): string =>
      Object.entries(spent)
        .map(([k, v]) => `${k} ${(v - (before[k] ?? 0)).toFixed(0)}`)
        .join(', ');
    const questions = (await readFile(qa, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => String((JSON.parse(l) as { question: unknown }).question));
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const ask = async (q: string) => {
      const requests = source.requests;
      const ranges = server.requests.length;
      const t = performance.now();
      const a = await library.search(q, 'ppr', 1000);
      const asked = server.requests.slice(ranges).reduce((s, r) => s + r.ranges, 0);
      return { a, ms: performance.now() - t, requests: source.requests - requests, ranges: asked };
    };
    const atFirst = { ...spent };
    const first = await ask(questions[0]);
    console.log(
      `first question: ${first.ms.toFixed(0)} ms, ${first.a.rounds} rounds, ${(first.a.bytes / 1e6).toFixed(2)} MB, ` +
        `${first.requests} requests (${first.ranges} ranges), waited ${first.a.waitMs.toFixed(0)} ms ` +
        `(${spentLine(atFirst)})`,
    );
    const atMore = { ...spent };
    let waited = 0;
    const hits: string[] = [];
    let rounds = 0;
    let bytes = 0;
    let requests = 0;
    let ranges = 0;
    let ms = 0;
    for (let i = 1; i < count; i++) {
      const r = await ask(questions[(i * 37) % questions.length]);
      hits.push(r.a.hits.map((h) => h.chunkId).join(','));
      rounds += r.a.rounds;
      bytes += r.a.bytes;
      requests += r.requests;
      ranges += r.ranges;
      ms += r.ms;
      waited += r.a.waitMs;
    }
    console.log(
      `${count - 1} more: ${ms.toFixed(0)} ms, ${rounds} rounds, ${(bytes / 1e6).toFixed(2)} MB, ${requests} requests ` +
        `(${ranges} ranges); several ranges a request: ${multiRange}; hits ` +
        `${createHash('sha256').update(hits.join('|')).digest('hex').slice(0, 12)}; waited ${waited.toFixed(0)} ms ` +
        `(${spentLine(atMore)}); load ${load}`,
    );
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
