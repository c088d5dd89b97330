// Round fourteen (issue 47): the Ask view's first page read alone (ask()'s `firstPage`, firstPage.ts) shows what the
// whole answer's first page shows, on real bundles. For each question, asked cold twice over a fresh library: once
// whole (every passage's record: what `cli ask` reads), once as the Ask view asks (the first page, then its rest).
// Compares the page's cards (ids, texts, sentences, ratings, order), their count (passagesShown over every rating),
// the passages and tokens left for "More passages", the no-good-match flag, and the rest with the whole answer.
// Prints per set the questions compared, those that differ, and the bytes both read (p50 / max KB, opening included).
// --part <bytes> (round twenty-one): the bundle's source says a part of a multi-range request costs that much
// (RangeSource.partBytes): both reads go through the block store's reading of gaps shorter than a part.
// --warm (round twenty-seven): the first page's library reads the hash pages a link reads ahead once open
// (BlockStore.readUpperPages; only with --part > 0, a source that reads ahead) before its question, the whole answer's
// not: the page shows the same with them held.
// --one-range <gap> (round twenty-eight): the source says what a host answering one range a request over HTTP/2 says
// (rangeSources.ts: gapBytes <gap>, 100 in flight, a range a request): both reads go through the block store's reading
// across gaps (pageAligned).
// Usage: node --import tsx test/bench/first-page-check.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25]
//          [--part <bytes>] [--warm] [--one-range <gap>]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { isDeepStrictEqual } from 'node:util';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { passagesShown } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import type { AskResult } from '../../src/services/questions/queryProtocol.ts';
import { ask } from '../../src/services/source/ask.ts';
import { pagedSource } from '../../src/services/source/pagedSource.ts';
import { arg } from './lib/args.ts';

const BUDGET = 12_000;

function kb(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)];
  return `${Math.round(p50 / 1000)} / ${Math.round(sorted.at(-1)! / 1000)}`;
}

/** What a page shows of a result (what it read and how long it took aside). */
function shown(r: AskResult): unknown {
  const { reads: _r, milliseconds: _m, ...rest } = r;
  return JSON.parse(JSON.stringify(rest));
}

async function cold(data: Uint8Array, name: string) {
  // --part: the source says what a part of a multi-range request costs (RangeSource.partBytes), as a host's does.
  const part = arg('part', '');
  const oneRange = arg('one-range', '');
  const source = Object.assign(new MemoryRangeSource(data, name), {
    partBytes: part === '' ? undefined : Number(part),
    ...(oneRange === '' ? {} : { gapBytes: Number(oneRange), inFlight: 100, rangesARequest: 1 }),
  });
  const opened = await openPagedBundle(source, createTermAnalyzer());
  if (!opened) throw new Error(`${name}: has no pages`);
  return { source, library: opened.library };
}

async function main(): Promise<void> {
  const n = Number(arg('n', '25'));
  const sets = process.argv
    .slice(2)
    .filter(
      (a, i, all) =>
        !a.startsWith('--') &&
        all[i - 1] !== '--n' &&
        all[i - 1] !== '--part' &&
        all[i - 1] !== '--one-range',
    );
  for (const spec of sets) {
    const [, name, bundle, file] = /^(.+?)=(.+):([^:]+)$/.exec(spec) ?? [];
    if (!file) throw new Error(`not <name>=<x.bundle>:<questions.jsonl>: ${spec}`);
    const data = new Uint8Array(await readFile(bundle));
    const all = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { question: string }).question);
    const step = Math.max(1, Math.floor(all.length / n));
    const questions = all.filter((_, i) => i % step === 0).slice(0, n);
    let differ = 0;
    let lazy = 0;
    const wholeBytes: number[] = [];
    const pageBytes: number[] = [];
    for (const question of questions) {
      const request = { question, mode: 'ppr' as const, budget: BUDGET };
      const a = await cold(data, name);
      const whole = await ask(pagedSource(a.library), request);
      wholeBytes.push(a.source.bytesRead);
      const b = await cold(data, name);
      if (process.argv.includes('--warm')) await b.library.reader.store.readUpperPages();
      let rest: (() => Promise<AskResult>) | undefined;
      const page = await ask(pagedSource(b.library), request, { firstPage: (r) => (rest = r) });
      pageBytes.push(b.source.bytesRead);
      const first = passagesShown(whole.evidence.map((e) => e.relevance?.value ?? 0));
      let same: boolean;
      if (!page.more) same = isDeepStrictEqual(shown(page), shown(whole)) && !rest;
      else {
        lazy++;
        const { more, evidence, ...pageRest } = shown(page) as AskResult;
        const { evidence: wholeEvidence, ...wholeRest } = shown(whole) as AskResult;
        same =
          isDeepStrictEqual(evidence, wholeEvidence.slice(0, first)) &&
          isDeepStrictEqual(pageRest, wholeRest) &&
          more!.passages === wholeEvidence.length - first &&
          more!.tokens === wholeEvidence.slice(first).reduce((t, e) => t + e.tokens, 0) &&
          isDeepStrictEqual(shown(await rest!()), shown(whole));
      }
      if (!same) {
        differ++;
        console.log(`  differs: ${question}`);
      }
    }
    console.log(
      `${name}: ${questions.length} questions, ${differ} differ, ${lazy} with passages left unread; ` +
        `cold question KB p50 / max: whole ${kb(wholeBytes)}, first page ${kb(pageBytes)}; load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  }
}

await main();
