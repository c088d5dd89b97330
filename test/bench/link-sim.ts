// A cold question over a simulated slow link, in Node (round seventeen, issue 47): to see quickly, without Chromium,
// how many rounds of reads a settled answer waits on and how long the question's own work between them takes. Not a
// replacement for link-latency.ts (Chromium's emulation, the app, the worker): a model of the link only.
// - The link: every request (one read, or one request of several ranges as a host answering multipart) waits one
//   round trip (--latency-ms, 100) for its first byte, then its bytes go down one shared link of --mbps (10) in the
//   order they are ready (a request's bytes after those of the requests ahead of it); at most 6 requests in flight
//   (HTTP/1.1's per-host limit), the rest queued, as a browser queues them.
// - The question as the Ask view asks it: `ppr` at the default budget, the first page's cards (firstPage.ts), the
//   words' early evidence; each question on a freshly opened library (nothing read before it but the opening).
// Printed per question and as p50 / max: first evidence (early callback) and settled (search returned) in ms from the
// question's start, rounds (readUntilComplete's), requests, the question's bytes, and the time not spent waiting on
// the link (the question's own work: runs, decoding, digests).
// --virtual (round eighteen): the link's time only, on a clock of its own that the question's work does not move
//   (a request's response is handed over once everything before it has run; SHA-256 by the pure hasher, so that no
//   work waits outside the clock): what the order and overlap of the reads cost, the same from run to run whatever
//   the machine's load. Own work is then 0 (runs and decoding stay real milliseconds); a change that overlaps work
//   with the link shows only without it.
// --part-overhead <bytes> (round twenty): what a part of a multipart answer adds on the wire (90 by default, nginx's; our
//   static server's is ~120 at 100 MiB, test/e2e/lib/staticServer.ts); 0 shows what the reads would take if the
//   parts' headers were free. Printed per question: ranges, and the bytes on the wire (data, parts' and responses'
//   headers).
// --free-hashes (round twenty): a what-if, not a layout: the question's ranges in the block hashes' part (past the
//   pages part's end) cost nothing on the wire, neither their bytes nor their parts' headers (a request of hash pages
//   only still waits its round trip): how fast the reads would be if a layout checked its blocks without reading hash
//   pages. The opening is charged as always.
//   The source says the same part cost to the reader (RangeSource.partBytes, round twenty-one): a reader that reads
//   gaps shorter than a part with the ranges around them does so here as against a host.
// --shared (round twenty-four, with --virtual): the link shared equally among the responses arriving at once (as
//   Chromium's emulation shares it, and TCP flows roughly do) instead of first come, first served (SharedLink).
// --waterfall: every request of a question (sent, last byte, ranges by section); from round twenty-nine also the
//   settled answer's critical path (criticalPath: the requests in series back from the last one, and the time the link
//   carried no byte of the question).
// --tree <checkout>: the reader of another checkout (its src/), to set two trees side by side under one clock.
// Each question's line ends with a digest of its hits (round twenty-one): two readers answer the same when the digests
//   are.
// --trace <file> (round twenty-one): every request's ranges, a JSON line a question (with the pages part's base and
//   sections), for offline models of what a question reads (hash-shapes.ts).
// --one-range <gap> (round twenty-three): a host answering one range a request (S3's way), known from the start: the
//   source says the gap (RangeSource.gapBytes: 32768 over HTTP/1.1, 4096 over HTTP/2 as HttpRangeSource says it) and
//   no part cost, and each range of a request is a request of its own, one after the other within it. With
//   --in-flight <n> and --ranges-a-request <n> the source says them too (HTTP/2: 64 and 1) and the link keeps that
//   many out at once (6 without). --response-overhead <bytes>: what a response adds on the wire beyond its data (300
//   by default; over HTTP/2 what h2-request-bytes.ts measures, its HEADERS and frames). Not modelled: a request's CPU
//   in the browser (link-latency.ts --http2 has it).
// --think-ms <n> (round twenty-seven): the time a person takes between the Library view saying open and the question;
//   meanwhile a link reads the hash pages it reads ahead (BlockStore.readUpperPages, started at opening as the app's
//   SourceChoice starts it; a --tree without it only waits). 0 by default: asked as soon as open, the pages read ahead
//   then share the link with the question. The question's bytes and requests are printed without them; a question's
//   line says how many KB were read ahead. Before the next question, what was read ahead is awaited (not timed).
// --type-ms <n> (round thirty): the question typed a key at a time, n ms apart, after --think-ms; the words finished
//   so far read ahead at each key that finishes one (PagedLibrary.prepare, as the Ask box). Its line says how many KB
//   were read before the question (read ahead and typed words); the question's bytes are those after.
// Usage: node --import tsx test/bench/link-sim.ts <x.bundle> <questions.jsonl> [--n 20] [--latency-ms 100] [--mbps 10]
//          [--waterfall] [--virtual [--shared]] [--part-overhead 90] [--free-hashes] [--tree <checkout>] [--trace <file>]
//          [--one-range <gap> [--in-flight <n>] [--ranges-a-request <n>] [--response-overhead <bytes>]] [--think-ms <n>] [--type-ms <n>]
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import process from 'node:process';
import type { PagedLibrary } from '../../src/core/paged/index.ts';
import type { RangeSource } from '../../src/core/paged/rangeSource.ts';
import type { TermAnalyzer } from '../../src/core/graph/index.ts';
import { arg, paramOverrides } from './lib/args.ts';
import { regionsOf } from './lib/bundleRegions.ts';
import type { Region } from './lib/taggedSource.ts';

const VIRTUAL = process.argv.includes('--virtual');
// Before the reader is imported: blockDigest.ts chooses its hasher when it loads.
if (VIRTUAL) Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
const TREE = resolve(arg('tree', resolve(import.meta.dirname, '../..')));
const paged = (await import(`${TREE}/src/core/paged/index.ts`)) as {
  openPagedBundle(
    source: RangeSource,
    analyzer: TermAnalyzer,
    params?: Record<string, unknown>,
  ): Promise<{ library: PagedLibrary } | undefined>;
};
// --param key=value (round thirty-one, repeatable): a query-time parameter the library is opened with, as
// question-bytes.ts's (e.g. walkMaxDf=300, the walk's hubs held: a ranking change, measured here, not made).
const PARAMS = paramOverrides();
const { MemoryRangeSource } = (await import(
  `${TREE}/src/core/paged/rangeSource.ts`
)) as typeof import('../../src/core/paged/rangeSource.ts');
const { createTermAnalyzer } = (await import(
  `${TREE}/src/core/text/index.ts`
)) as typeof import('../../src/core/text/index.ts');
const { firstPageWanted } = (await import(
  `${TREE}/src/services/source/firstPage.ts`
)) as typeof import('../../src/services/source/firstPage.ts');

/** The virtual clock (--virtual): its time, and the responses waiting for it, handed over earliest first. */
let virtualNow = 0;
const due: Array<{ end: number; go: () => void }> = [];
const now = (): number => (VIRTUAL ? virtualNow : performance.now());

/** Resolves `work`; under the virtual clock, hands over each response once everything before it has run. */
async function clocked<T>(work: Promise<T>): Promise<T> {
  if (!VIRTUAL) return work;
  let done = false;
  const out = work.finally(() => (done = true));
  out.catch(() => undefined);
  while (!done) {
    // Three turns of the event loop: whatever the last response set going has run (every step is a promise job).
    for (let k = 0; k < 3; k++) await new Promise((next) => setImmediate(next));
    if (done) continue;
    if (SHARED) {
      const next = shared.next();
      if (!next) continue;
      virtualNow = Math.max(virtualNow, next.end);
      next.go();
      continue;
    }
    if (due.length === 0) continue;
    due.sort((a, b) => a.end - b.end);
    const next = due.shift()!;
    virtualNow = Math.max(virtualNow, next.end);
    next.go();
  }
  return out;
}

/**
 * --shared (round twenty-four, with --virtual): the link shared equally among the responses arriving at once, as
 * Chromium's emulation and TCP's flows share it, instead of each response's bytes after those ahead of it. Then a
 * stage's requests end together, and each next one's round trip leaves the link idle (link-timeline.ts).
 */
class SharedLink {
  private at = 0;
  private readonly flows: Array<{ ready: number; left: number; go: () => void }> = [];
  /** A response whose first byte is due at `ready`, `bytes` on the wire. */
  add(ready: number, bytes: number, go: () => void): void {
    this.flows.push({ ready, left: bytes, go });
  }
  /** Runs the link to the next response's last byte: when, and its hand-over (undefined: nothing in flight). */
  next(): { end: number; go: () => void } | undefined {
    if (this.flows.length === 0) return undefined;
    let t = Math.max(this.at, virtualNow);
    for (;;) {
      const active = this.flows.filter((f) => f.ready <= t);
      const later = this.flows.filter((f) => f.ready > t).map((f) => f.ready);
      const nextReady = later.length ? Math.min(...later) : Infinity;
      if (active.length === 0) {
        t = nextReady;
        continue;
      }
      const rate = BYTES_PER_MS / active.length;
      const first = active.reduce((a, b) => (b.left < a.left ? b : a));
      const finish = t + first.left / rate;
      const to = Math.min(finish, nextReady);
      for (const f of active) f.left -= rate * (to - t);
      t = to;
      if (finish <= nextReady) {
        this.at = t;
        this.flows.splice(this.flows.indexOf(first), 1);
        return { end: t, go: first.go };
      }
    }
  }
}
const SHARED = process.argv.includes('--shared');
if (SHARED && !VIRTUAL) throw new Error('link-sim: --shared needs --virtual');
const shared = new SharedLink();

const N = Number(arg('n', '20'));
const LATENCY_MS = Number(arg('latency-ms', '100'));
const BYTES_PER_MS = (Number(arg('mbps', '10')) * 1e6) / 8 / 1000;
const WATERFALL = process.argv.includes('--waterfall');
const ONE_RANGE = arg('one-range', '') === '' ? undefined : Number(arg('one-range', ''));
const SAYS_IN_FLIGHT = arg('in-flight', '') === '' ? undefined : Number(arg('in-flight', ''));
const RANGES_A_REQUEST = arg('ranges-a-request', '') === '' ? undefined : Number(arg('ranges-a-request', ''));
const IN_FLIGHT = SAYS_IN_FLIGHT ?? 6;
const BUDGET_TOKENS = 12_000;
/** Bytes a part of a multipart answer adds (nginx: ~90), and a response's headers. */
const PART_OVERHEAD = Number(arg('part-overhead', '90'));
const FREE_HASHES = process.argv.includes('--free-hashes');
const RESPONSE_OVERHEAD = Number(arg('response-overhead', '300'));
/** --think-ms (round twenty-seven): between opening and the question, while the hash pages are read ahead. */
const THINK_MS = Number(arg('think-ms', '0'));
/**
 * --type-ms <n> (round thirty): the question typed a key at a time, n ms apart, after THINK_MS; the words finished
 * so far (finishedWords) read ahead as the Ask box has them read (PagedLibrary.prepare). 0 (the default): none.
 */
const TYPE_MS = Number(arg('type-ms', '0'));
const TYPED = TYPE_MS > 0;

/** `ms` on the bench's clock: under the virtual clock, a hand-over due then (a flow of no bytes on the shared link). */
function sleep(ms: number): Promise<void> {
  if (!VIRTUAL) return new Promise((done) => setTimeout(done, ms));
  return new Promise<void>((go) => {
    if (SHARED) shared.add(virtualNow + ms, 0, go);
    else due.push({ end: virtualNow + ms, go });
  });
}

/** --trace <file>: every request's ranges, a JSON line a question (where the bytes go, offline). */
const TRACE = arg('trace', '');

/** The simulated link (see the header), over bytes in memory. */
class LinkSource implements RangeSource {
  /** --one-range: the gap a host answering one range a request is read with; else none (a multipart host). */
  readonly gapBytes = ONE_RANGE ?? 0;
  /** What the model charges a part (--part-overhead), as a host's source says it (RangeSource.partBytes). */
  readonly partBytes = ONE_RANGE === undefined ? PART_OVERHEAD : 0;
  /** --in-flight and --ranges-a-request: as the source says them (RangeSource.inFlight, rangesARequest). */
  readonly inFlight = SAYS_IN_FLIGHT;
  readonly rangesARequest = RANGES_A_REQUEST;
  bytesRead = 0;
  requests = 0;
  /** Ranges asked, and bytes sent on the wire (data and headers). */
  ranges = 0;
  wireBytes = 0;
  waitingMs = 0;
  /** --free-hashes: where the pages part ends (the hashes' part follows it), once the library is open. */
  freeFrom = Infinity;
  private linkFreeAt = 0;
  private busy = 0;
  private readonly queue: Array<() => void> = [];
  readonly log: Array<{
    start: number;
    end: number;
    ranges: ReadonlyArray<readonly [number, number]>;
    bytes: number;
    /** Its ranges' offsets in the bundle (the waterfall names their sections). */
    offsets: number[];
  }> = [];
  private readonly inner: RangeSource;
  constructor(
    data: Uint8Array,
    readonly name: string,
  ) {
    this.inner = new MemoryRangeSource(data, name);
  }
  get size(): number {
    return this.inner.size;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    return (await this.readRanges([[offset, length]]))[0];
  }
  async readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    if (ONE_RANGE === undefined) return this.request(ranges);
    // A host answering one range a request: a request each, one after the other (HttpRangeSource over HTTP/1.1).
    const out: Uint8Array[] = [];
    for (const range of ranges) out.push(...(await this.request([range])));
    return out;
  }
  /** One request of the ranges: a slot of the ones in flight, a round trip, its bytes down the shared link. */
  private async request(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    if (this.busy >= IN_FLIGHT) await new Promise<void>((go) => this.queue.push(go));
    this.busy++;
    try {
      const out = await Promise.all(ranges.map(([o, l]) => this.inner.read(o, l)));
      const bytes = out.reduce((n: number, b: Uint8Array) => n + b.length, 0);
      this.bytesRead += bytes;
      this.requests++;
      const start = now();
      const charged = ranges.filter(([o]) => o < this.freeFrom);
      const chargedBytes = charged.reduce((n, [, l]) => n + l, 0);
      const wire =
        chargedBytes + RESPONSE_OVERHEAD + (ranges.length > 1 ? PART_OVERHEAD * charged.length : 0);
      this.ranges += ranges.length;
      this.wireBytes += wire;
      const firstByte = start + LATENCY_MS;
      const end = Math.max(firstByte, this.linkFreeAt) + wire / BYTES_PER_MS;
      this.linkFreeAt = end;
      if (SHARED) await new Promise<void>((go) => shared.add(firstByte, wire, go));
      else if (VIRTUAL) await new Promise<void>((go) => due.push({ end, go }));
      else await new Promise((done) => setTimeout(done, end - performance.now()));
      this.log.push({ start, end: now(), ranges, bytes, offsets: ranges.map(([o]) => o) });
      return out;
    } finally {
      this.busy--;
      this.queue.shift()?.();
    }
  }
}

/**
 * The answer's hits in short (round twenty-one): a SHA-256 of their ids, scores, texts and provenance, to compare what
 * two readers answer over the same link (--tree) without printing the passages.
 */
function answerDigest(hits: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(hits)).digest('hex').slice(0, 12);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1];
}

/**
 * --waterfall (round twenty-nine): the settled answer's critical path, from the request that ended last back to the
 * question's start. Each request was sent the moment another ended (its stage's last response was checked and the run
 * after it noted the next stage, or a slot of the 6 came free), or at the start: the request that ended then is the one
 * it waited on. Printed hop by hop (sent, first byte after the round trip, last byte, what it carried, and what it
 * waited on when that was another load's slot), with the time the link carried no byte of the question (no response
 * between its first and last byte): the round trips in series that overlap nothing. Exact under --virtual (a request is
 * sent on the clock's tick at which the one before it ended); on the real clock the nearest end within 2 ms.
 */
function criticalPath<R extends { start: number; end: number }>(
  log: readonly R[],
  t0: number,
  settled: number,
  sectionsOf: (r: R) => string,
): void {
  const near = VIRTUAL ? 0.01 : 2;
  const chain: R[] = [];
  let at = log.reduce<R | undefined>((a, r) => (!a || r.end > a.end ? r : a), undefined);
  while (at) {
    chain.unshift(at);
    const start = at.start;
    at = log
      .filter((r) => r !== at && Math.abs(r.end - start) <= near)
      .reduce<R | undefined>((a, r) => (!a || r.end > a.end ? r : a), undefined);
  }
  // The link's busy time: the union of each response's span from its first byte to its last.
  const spans = log
    .map((r) => [Math.min(r.end, r.start + LATENCY_MS) - t0, r.end - t0])
    .sort((a, b) => a[0] - b[0]);
  let busy = 0;
  let to = 0;
  for (const [s, e] of spans) {
    if (e <= to) continue;
    busy += e - Math.max(s, to);
    to = e;
  }
  console.log(
    `     critical path: ${chain.length} requests in series (${chain.length * LATENCY_MS} ms of round trips); ` +
      `the link idle ${(settled - busy).toFixed(0)} of ${settled.toFixed(0)} ms`,
  );
  for (const r of chain) {
    // Sent when a request of another kind ended: a slot it waited for (or a stage that followed one).
    const waited = chain.indexOf(r) > 0 ? chain[chain.indexOf(r) - 1] : undefined;
    console.log(
      `       ${(r.start - t0).toFixed(0).padStart(6)} → ${(r.end - t0).toFixed(0).padStart(6)} ms ${sectionsOf(r)}` +
        (waited ? ` (after ${sectionsOf(waited)})` : ''),
    );
  }
}

async function main(): Promise<void> {
  const [bundlePath, questionsPath] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (!bundlePath || !questionsPath)
    throw new Error('usage: link-sim.ts <x.bundle> <questions.jsonl> [--n 20]');
  const data = new Uint8Array(await readFile(bundlePath));
  const { regions } = WATERFALL ? await regionsOf(data, bundlePath) : { regions: [] as Region[] };
  const all = (await readFile(questionsPath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { question: string }).question);
  const picked =
    all.length <= N ? all : Array.from({ length: N }, (_, i) => all[Math.floor((i * all.length) / N)]);
  const analyzer = createTermAnalyzer();
  console.log(`reader: ${TREE}${VIRTUAL ? ', virtual clock (the link only)' : ''}`);
  const rows: Array<
    Record<
      'first' | 'settled' | 'rounds' | 'requests' | 'ranges' | 'bytes' | 'wire' | 'own' | 'runs' | 'decode',
      number
    >
  > = [];
  const loads: number[] = [];
  const traced: string[] = [];
  for (const [i, q] of picked.entries()) {
    loads.push(loadavg()[0]);
    const source = new LinkSource(data, bundlePath);
    const opened = await clocked(paged.openPagedBundle(source, analyzer, PARAMS));
    if (!opened) throw new Error(`${bundlePath}: has no pages`);
    const { library } = opened;
    if (FREE_HASHES) {
      const { base } = library.reader.store as unknown as { base: number };
      const ends = Object.values(library.reader.directory.sections).map(([at, length]) => at + length);
      source.freeFrom = base + Math.max(...ends);
    }
    const bytesBefore = source.bytesRead;
    const requestsBefore = source.requests;
    // Read ahead from opening on (as SourceChoice starts it), while the person looks at the library for THINK_MS.
    const store = library.reader.store as { readUpperPages?: () => Promise<number> };
    const ahead = store.readUpperPages ? store.readUpperPages() : Promise.resolve(0);
    ahead.catch(() => undefined);
    if (THINK_MS > 0) await clocked(sleep(THINK_MS));
    // Typed a key at a time from then on: at each key the words finished so far are read ahead when they changed, as
    // the Ask box has them read (ask.svelte.ts typing, QueryService.prepare: a newer text stops the one before).
    const typing: Array<Promise<void>> = [];
    if (TYPED) {
      // A tree before round thirty has no typedWords.ts (nor prepare): its question is typed as slowly, nothing read.
      const finishedWords = await import(`${TREE}/src/services/questions/typedWords.ts`).then(
        (m: typeof import('../../src/services/questions/typedWords.ts')) => m.finishedWords,
        () => undefined,
      );
      let typed = '';
      let latest = 0;
      for (let k = 1; k <= q.length; k++) {
        await clocked(sleep(TYPE_MS));
        const words = finishedWords?.(q.slice(0, k)).trim();
        if (!words || words === typed || !('prepare' in library)) continue;
        typed = words;
        const mine = ++latest;
        const reading = library.prepare(words, () => latest === mine);
        reading.catch(() => undefined);
        typing.push(reading);
      }
    }
    const typedBytes = TYPED ? source.bytesRead - bytesBefore : 0;
    const rangesBefore = source.ranges;
    const wireBefore = source.wireBytes;
    const logFrom = source.log.length;
    const spent = { ...library.reader.store.spent };
    const t0 = now();
    let first = -1;
    const answer = await clocked(
      library.search(
        q,
        'ppr',
        BUDGET_TOKENS,
        undefined,
        () => {
          if (first < 0) first = now() - t0;
        },
        firstPageWanted(q, (t) => library.terms(t)),
      ),
    );
    const settled = now() - t0;
    if (first < 0) first = settled;
    // What was read ahead, apart from the question's own reads (its one request too, where it sent one).
    const warm = await clocked(ahead);
    // Time with no request of the question in flight: the question's own work.
    const spans = source.log.slice(logFrom).map((r) => [r.start - t0, r.end - t0] as [number, number]);
    spans.sort((a, b) => a[0] - b[0]);
    let covered = 0;
    let at = 0;
    for (const [s, e] of spans) {
      if (e <= at) continue;
      covered += e - Math.max(s, at);
      at = e;
    }
    const spentNow = library.reader.store.spent;
    const runs = settled - answer.waitMs;
    const decode = spentNow.decodeMs - spent.decodeMs;
    const hash = spentNow.hashMs - spent.hashMs;
    const followUp = spentNow.followUpMs - spent.followUpMs;
    const arrivals = spentNow.arrivalMs - spent.arrivalMs;
    const row = {
      runs,
      decode,
      hash,
      followUp,
      first,
      settled,
      rounds: answer.rounds,
      requests: source.requests - requestsBefore - (warm > 0 ? 1 : 0),
      ranges: source.ranges - rangesBefore,
      bytes: source.bytesRead - bytesBefore - (TYPED ? typedBytes : warm),
      wire: source.wireBytes - wireBefore,
      own: settled - covered,
    };
    rows.push(row);
    if (TRACE) {
      const { base } = library.reader.store as unknown as { base: number };
      const sections = library.reader.directory.sections;
      const requests = source.log.slice(logFrom).map((r) => r.ranges);
      traced.push(JSON.stringify({ question: i + 1, base, sections, requests }));
    }
    console.log(
      `${String(i + 1).padStart(2)} first ${first.toFixed(0)} ms, settled ${settled.toFixed(0)} ms, ${row.rounds} ` +
        `rounds, ${row.requests} requests, ${row.ranges} ranges, ${(row.bytes / 1e3).toFixed(0)} KB (on the wire ` +
        `${(row.wire / 1e3).toFixed(0)}), own work ${row.own.toFixed(0)} ms (runs ${runs.toFixed(0)}, decoding ` +
        `${decode.toFixed(0)}, digests ${hash.toFixed(0)}, follow-ups ${followUp.toFixed(0)}; between responses ` +
        `${arrivals.toFixed(0)}), ` +
        `${answer.hits.length} hits (answer ${answerDigest(answer.hits)})` +
        (warm > 0 ? `; read ahead ${(warm / 1e3).toFixed(0)} KB` : '') +
        (TYPED ? `; before the question (read ahead, typed words) ${(typedBytes / 1e3).toFixed(0)} KB` : ''),
    );
    if (WATERFALL) {
      // Each request's ranges by region of the bundle (bundleRegions.ts, as question-bytes.ts splits them): the
      // directory's offsets alone leave out the paths stored after version 13's and 17's blocks, so the rows' last
      // blocks were named as the degrees section and the hash pages part.
      const sectionsOf = (r: (typeof source.log)[number]): string => {
        const count = new Map<string, number>();
        for (const o of r.offsets) {
          const name = regions.find((g) => o >= g.start && o < g.end)?.name ?? 'head';
          count.set(name, (count.get(name) ?? 0) + 1);
        }
        return [...count].map(([name, n]) => `${name} ${n}`).join(', ');
      };
      const logged = source.log.slice(logFrom);
      for (const r of logged)
        console.log(
          `     ${(r.start - t0).toFixed(0).padStart(6)} → ${(r.end - t0).toFixed(0).padStart(6)} ms ` +
            `${String(r.ranges.length).padStart(3)} ranges ${(r.bytes / 1e3).toFixed(1).padStart(7)} KB ` +
            sectionsOf(r),
        );
      criticalPath(logged, t0, settled, sectionsOf);
    }
  }
  if (TRACE) await writeFile(TRACE, traced.join('\n') + '\n');
  const f = (pick: (r: (typeof rows)[number]) => number) =>
    `${median(rows.map(pick)).toFixed(0)} / ${Math.max(...rows.map(pick)).toFixed(0)}`;
  console.log(
    `p50 / max of ${rows.length}: first evidence ${f((r) => r.first)} ms, settled ${f((r) => r.settled)} ms, rounds ` +
      `${f((r) => r.rounds)}, requests ${f((r) => r.requests)}, ranges ${f((r) => r.ranges)}, KB ` +
      `${f((r) => r.bytes / 1e3)}, on the wire ${f((r) => r.wire / 1e3)}, own work ` +
      `${f((r) => r.own)} ms (runs ${f((r) => r.runs)}, decoding ${f((r) => r.decode)}); load ${median(loads).toFixed(1)} / ${Math.max(...loads).toFixed(1)}`,
  );
}

await main();
