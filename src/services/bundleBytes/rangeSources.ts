// Where the page reads a bundle by ranges (src/core/paged): a URL of the app's own origin with HTTP Range requests
// (any static host that honours them), or a File dropped from disk (File.slice). Both count what they read.
import { concatBytes } from '../../core/bundle/index.ts';
import { ROUND_TRIP_GAP, type RangeSource } from '../../core/paged/index.ts';
import { checkAnsweredFrom } from './bundleFetch.ts';
import { byterangesBoundary, parseByteranges, parseContentRange, type BytePart } from './byteRanges.ts';
import { multiplexes, watchProtocol } from './nextHopProtocol.ts';
import { messageOf } from '../../core/errors.ts';

/**
 * The mode of every range request: the app opens same-origin bundles only, and the service worker sends fetch()es of
 * this mode (no other fetch() of the app has it) to the network without its fetch event (src/sw/sw.ts).
 */
const SAME_ORIGIN: RequestMode = 'same-origin';

/**
 * The ranges (in the order given) as spans [first, last] of indices, each read as one range: a range joins the span
 * before it when it starts at or past that span's end, at most `gap` bytes after it.
 */
function spans(ranges: ReadonlyArray<readonly [number, number]>, gap: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let end = 0;
  ranges.forEach(([offset, length], i) => {
    const span = out.at(-1);
    if (span && offset >= end && offset - end <= gap) span[1] = i;
    else out.push([i, i]);
    end = offset + length;
  });
  return out;
}

/** Milliseconds a range request may take, answer and body (a block run is at most a few hundred KB). */
const RANGE_TIME_LIMIT_MS = 60_000;
/** Bytes a part of a multipart answer adds to its data at most: its delimiter and headers (nginx: ~90). */
const MULTIPART_OVERHEAD = 512;
/**
 * What a part of nginx's multipart answers adds (its delimiter, Content-Type and Content-Range of a bundle of 100 MB):
 * what a host is thought to add before it has answered several ranges.
 */
const NGINX_PART_BYTES = 90;
/**
 * The gap read rather than sent as a request of its own by a host answering one range a request over HTTP/2 or HTTP/3.
 * A request there costs ~140–290 bytes on the wire (h2-request-bytes.ts) but also a slot of those in flight for a
 * round trip and ~2–4 ms of the browser's CPU (Chromium, 100 MiB, docs/results/question-bytes.md round twenty-three):
 * at 512 bytes a cold first page sent ~4,900 requests (20 s of CPU a question at load 14), at 4 KiB ~2,300 for 8.6
 * MB read, at 32 KiB (HTTP/1.1's) ~360 for 15.6 MB. 4 KiB is also HTTP/1.1's 32 KiB scaled to 64 requests in flight
 * instead of 6 (a round trip's bytes shared by the requests in flight).
 */
const STREAM_GAP = 4096;
/**
 * Requests kept out at once by such a host: the 100 streams RFC 9113 advises a server to allow at least (nginx 128), so
 * that none waits in the browser for a free stream. 64 until round twenty-eight: a cold question at 100 MiB sends ~2,000
 * requests in 7 stages, and a stage's requests go out in waves of this many, a round trip each; at 100 the link alone
 * (link-sim --virtual, 10 questions) settles in 6,452 ms p50 instead of 6,749 (128: the same 6,452), and Chromium
 * (link-latency.ts --http2 --multi-range first, 10 questions) 627–935 ms sooner a question, median (7–8 of 10),
 * docs/results/question-bytes.md.
 */
const STREAMS_IN_FLIGHT = 100;

/** A bundle URL answered by Range requests; open() says undefined when the host sends whole files only. */
export class HttpRangeSource implements RangeSource {
  bytesRead = 0;
  /** Range requests sent (a question's cost over HTTP is their count more than their bytes). */
  requests = 0;
  /**
   * Whether the host answers several ranges in one request with their parts (206 multipart/byteranges): unknown
   * until the first such request, then remembered. A host that answers one range of them, the whole file (200) or
   * 416 is read one range a request from then on.
   */
  multiRange: boolean | undefined = undefined;

  /**
   * A host that answers several ranges in one request pays no round trip for a gap between wanted ranges, only its
   * bytes: none is read (a cold question then reads 25–40 % less, docs/results/question-bytes.md, round twelve).
   * Until the host has been asked several ranges it is thought to answer them (nginx and Apache do); one found not
   * to reads the ranges of that request a round trip's worth apart as one (readRanges), and from then on the block
   * store reads gaps up to a round trip's worth with the ranges around them.
   */
  get gapBytes(): number {
    return this.multiRange === false ? this.oneRangeGap : 0;
  }

  /**
   * The protocol the host answers over (Resource Timing's nextHopProtocol of this source's requests: 'h2', 'h3',
   * 'http/1.1'), '' until known: where it is HTTP/2 or HTTP/3 and the host answers one range a request, a request
   * costs its headers rather than a round trip, and the source asks the block store for many requests at once, a
   * range each, with a gap of what a request costs (inFlight, rangesARequest, gapBytes). HTTP/1.1 or unknown: 6 at
   * once, a round trip's worth of gap.
   */
  protocol = '';

  /** A host answering one range a request over a connection that carries many at once. */
  private get streams(): boolean {
    return this.multiRange === false && multiplexes(this.protocol);
  }

  /** The gap read through between two ranges sent one a request: a request's cost, over HTTP/2 its headers. */
  private get oneRangeGap(): number {
    return multiplexes(this.protocol) ? STREAM_GAP : ROUND_TRIP_GAP;
  }

  /** Requests the block store keeps out at once: many over HTTP/2 or HTTP/3 one range a request, else its default. */
  get inFlight(): number | undefined {
    return this.streams ? STREAMS_IN_FLIGHT : undefined;
  }

  /** Ranges in one readRanges call: one where each is a request of its own among many at once, else the default. */
  get rangesARequest(): number | undefined {
    return this.streams ? 1 : undefined;
  }

  /**
   * What a range costs on the wire beyond its bytes (RangeSource.partBytes): a part's delimiter and headers, measured
   * on the host's last multipart answer (its body less the data, a part each), nginx's until it has sent one. The block
   * store reads a shorter gap between wanted ranges with them. A host read one range a request pays a round trip a
   * range instead (gapBytes).
   */
  get partBytes(): number {
    return this.multiRange === false ? 0 : (this.measuredPart ?? NGINX_PART_BYTES);
  }
  private measuredPart: number | undefined;

  /** Its size in bytes, as the probe's Content-Range states it (set by open()). */
  size = 0;
  /** ETag or Last-Modified of the first answer: a bundle replaced meanwhile is refused, not mixed. */
  version: string | null = null;
  /** The probe's 12 bytes, answered by the same version as every later read: read() gives them from here. */
  private preamble: Uint8Array | undefined;

  private constructor(
    private readonly url: string,
    private readonly fetcher: typeof fetch,
    /** Milliseconds a range request and its body may take. */
    public timeLimitMs: number,
  ) {}

  get name(): string {
    return this.url;
  }

  /**
   * Probes the host with the bundle's first 12 bytes, sent as every range is (past the HTTP cache: a host without
   * ranges answers the whole file, whose start Chromium would keep as a partial entry, and the download that follows
   * was then sent as a range to complete it and answered whole again: two or three times the bundle set out for one
   * open, docs/results/real-hosts.md), with a time limit (a host that never answers would leave it opening forever).
   */
  static async open(
    url: string,
    fetcher: typeof fetch = fetch,
    timeLimitMs = RANGE_TIME_LIMIT_MS,
  ): Promise<HttpRangeSource | undefined> {
    const source = new HttpRangeSource(url, fetcher, timeLimitMs);
    // The probe's own entry (or the next request's) says the protocol; set whenever it arrives.
    const stopWatching = watchProtocol(url, (protocol) => (source.protocol = protocol));
    const response = await source.fetchRange('bytes=0-11').catch((error: unknown) => {
      stopWatching();
      throw error;
    });
    if (response.status === 200) {
      stopWatching();
      // No range support: the caller downloads the whole file instead (this body is not read).
      await response.body?.cancel();
      return undefined;
    }
    if (response.status !== 206) {
      stopWatching();
      throw new Error(`open bundle: ${url} answered ${response.status} ${response.statusText}`.trim());
    }
    source.size = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? NaN);
    if (!Number.isSafeInteger(source.size)) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`open bundle: ${url} answered a range without the file's size (Content-Range)`);
    }
    source.version = response.headers.get('etag') ?? response.headers.get('last-modified');
    // Read to its end, but no further than the 12 bytes asked: a probe answered with an endless body is stopped, and
    // an honest one completes (a cancelled answer is one the network ledger and the e2e's byte count cannot read).
    const preamble = await source.body(response, 12);
    // The opening's first read is these 12 bytes (the bundle's preamble, openBundle.ts): kept, it costs no second
    // round trip of its own.
    if (preamble.length === 12) source.preamble = preamble;
    return source;
  }

  /**
   * Exactly `length` bytes from `offset`, in one request past the HTTP cache (as every range read: a cached range of a
   * bundle the host has replaced since would fail the version check until the cache expired, and a reload could not
   * help). `signal` is the caller's Cancel (the offline copy's download, keptBundles.ts).
   */
  async read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (length === 0) return new Uint8Array(0);
    const kept = this.preamble;
    if (kept && offset >= 0 && offset + length <= kept.length) {
      // Counted as read, as before it was kept: what the library read, whichever request brought it.
      this.bytesRead += length;
      return kept.slice(offset, offset + length);
    }
    const response = await this.fetchRange(`bytes=${offset}-${offset + length - 1}`, signal);
    await this.checkAnswer(response);
    const range = parseContentRange(response.headers.get('content-range'));
    if (range && (range[0] !== offset || range[1] !== offset + length - 1)) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(
        `${this.url}: asked for bytes ${offset}-${offset + length - 1}, answered ${range[0]}-${range[1]}`,
      );
    }
    const bytes = await this.body(response, length);
    if (bytes.length !== length) {
      throw new Error(`${this.url}: asked for ${length} bytes at ${offset}, got ${bytes.length}`);
    }
    this.bytesRead += length;
    return bytes;
  }

  /**
   * Several ranges in one request where the host answers them as multipart/byteranges. What a host leaves out (it
   * answered one range, or merged some) is read range by range; a host that answers the whole file (200) has the
   * download stopped at once, before its body, and is read range by range from then on.
   */
  async readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    // One request a range, one after the other over HTTP/1.1 (the caller keeps a few batches in flight), all at once
    // over HTTP/2 or HTTP/3; ranges at most a request's cost apart in one request with the bytes between (oneRangeGap):
    // the block store chose these ranges with no gap, for a host thought to answer several a request (gapBytes), and
    // one that does not would pay a request for each.
    const readEach = async (list: ReadonlyArray<readonly [number, number]>) => {
      const readSpan = async ([first, last]: [number, number]) => {
        const start = list[first][0];
        const end = list[last][0] + list[last][1];
        const bytes = await this.read(start, end - start);
        const out: Uint8Array[] = [];
        for (let i = first; i <= last; i++)
          out.push(bytes.subarray(list[i][0] - start, list[i][0] - start + list[i][1]));
        return out;
      };
      const each = spans(list, this.oneRangeGap);
      if (multiplexes(this.protocol)) return (await Promise.all(each.map(readSpan))).flat();
      const out: Uint8Array[] = [];
      for (const span of each) out.push(...(await readSpan(span)));
      return out;
    };
    if (ranges.length <= 1 || this.multiRange === false) return readEach(ranges);
    const abort = new AbortController();
    const response = await this.fetchRange(
      `bytes=${ranges.map(([offset, length]) => `${offset}-${offset + length - 1}`).join(',')}`,
      abort.signal,
    );
    if (response.status === 200 || response.status === 416) {
      // 200: the host ignored the ranges and sends the whole bundle (up to gigabytes): stop it now.
      abort.abort();
      await response.body?.cancel().catch(() => undefined);
      this.multiRange = false;
      return readEach(ranges);
    }
    await this.checkAnswer(response);
    let boundary: string | undefined;
    try {
      boundary = byterangesBoundary(response.headers.get('content-type'));
    } catch (e) {
      abort.abort();
      throw new Error(`${this.url}: ${messageOf(e)}`);
    }
    // The parts' data and, for each, its headers and delimiter (a few hundred bytes at most).
    const asked = ranges.reduce((n, [, length]) => n + length, 0);
    const body = await this.body(response, asked + ranges.length * MULTIPART_OVERHEAD, abort);
    let parts: BytePart[];
    if (boundary) {
      try {
        parts = parseByteranges(body, boundary);
      } catch (e) {
        throw new Error(`${this.url}: ${messageOf(e)}`);
      }
    } else {
      // One range in answer to several: the host honours one a request (or merged them all into one).
      const range = parseContentRange(response.headers.get('content-range'));
      if (!range || body.length !== range[1] - range[0] + 1) {
        throw new Error(`${this.url}: a range answer does not match its Content-Range`);
      }
      parts = [{ start: range[0], end: range[1], bytes: body }];
    }
    const out: Array<Uint8Array | undefined> = ranges.map(([offset, length]) => {
      const part = parts.find((p) => p.start <= offset && offset + length - 1 <= p.end);
      return part?.bytes.subarray(offset - part.start, offset - part.start + length);
    });
    const left = ranges.filter((_, i) => !out[i]);
    // Parts it sent and every range covered: the host answers several ranges. One range back that left some out: it
    // does not (one that merged them all into one range answered them all, and is asked again).
    if (boundary && left.length === 0) {
      this.multiRange = true;
      // Bounded by what a body may carry a part (a host that merged ranges sent their gaps too), and by 0 (a body that
      // covered every range holds their data, so it is not below 0; held in bounds all the same).
      this.measuredPart = Math.max(
        0,
        Math.min(MULTIPART_OVERHEAD, Math.floor((body.length - asked) / parts.length)),
      );
    } else if (!boundary && left.length > 0) this.multiRange = false;
    for (let i = 0; i < ranges.length; i++) if (out[i]) this.bytesRead += ranges[i][1];
    const rest = await readEach(left);
    let r = 0;
    return out.map((bytes) => bytes ?? rest[r++]);
  }

  private async fetchRange(range: string, signal?: AbortSignal): Promise<Response> {
    this.requests++;
    // Called unbound: a browser's fetch refuses to run as a method of another object.
    const get = this.fetcher;
    // Each request has a time limit (a host that never answers would hang the question), and the caller's Cancel.
    const limit = AbortSignal.timeout(this.timeLimitMs);
    const response = await get(this.url, {
      headers: { Range: range },
      mode: SAME_ORIGIN,
      signal: signal ? AbortSignal.any([signal, limit]) : limit,
      // Past the HTTP cache: in Chromium, requests for ranges of one URL that go through the cache wait for each
      // other (one cache entry, one writer), so the 6 requests a round keeps in flight were answered one at a time,
      // 300 of them a question (docs/results/http-reads.md); the blocks are checked by their SHA-256 and kept by
      // the block store instead. A multi-range request never goes through it anyway (Chromium caches single ranges).
      cache: 'no-store',
    }).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      if (limit.aborted)
        throw new Error(`${this.url}: no answer to a range request in ${this.timeLimitMs / 1000} s`);
      // A network failure (the host went away, or redirected where this origin's requests may not go): named, and
      // still a TypeError (no answer at all: BundleAtUrl then looks for a kept copy).
      const failed = error instanceof TypeError ? TypeError : Error;
      throw new failed(
        `${this.url}: a range request failed (${messageOf(error)}): the ` +
          'host is unreachable, or it redirected to another origin',
        { cause: error },
      );
    });
    checkAnsweredFrom(this.url, response);
    this.limits.set(response, limit);
    return response;
  }

  /** Each response's time limit, so that reading its body is stopped by it too (body()). */
  private readonly limits = new WeakMap<Response, AbortSignal>();

  /**
   * A response's body, read until `max` bytes: a host that sends more than was asked (an endless 206, a gzip'd body
   * that inflates past it) has the request stopped there, with its time limit as for the answer itself.
   */
  private async body(response: Response, max: number, abort?: AbortController): Promise<Uint8Array> {
    const limit = this.limits.get(response);
    const reader = response.body?.getReader();
    if (!reader) return new Uint8Array(0);
    const pieces: Uint8Array[] = [];
    let total = 0;
    const stop = (why: string): never => {
      abort?.abort();
      void reader.cancel().catch(() => undefined);
      throw new Error(`${this.url}: ${why}`);
    };
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        if (limit?.aborted) stop(`a range answer did not arrive in ${this.timeLimitMs / 1000} s`);
        throw error;
      }
      if (step.done) break;
      total += step.value.length;
      if (total > max) stop(`a range answer ran past the ${max} bytes asked`);
      pieces.push(step.value);
    }
    return concatBytes(pieces);
  }

  /** A range answered as asked (206), of the version opened; any other answer is stopped before its body and refused. */
  private async checkAnswer(response: Response): Promise<void> {
    const version = response.headers.get('etag') ?? response.headers.get('last-modified');
    const refused =
      response.status !== 206
        ? `a range request answered ${response.status} (the host stopped serving ranges)`
        : this.version && version && version !== this.version
          ? 'the bundle changed on the server since it was opened; reload the page'
          : null;
    if (!refused) return;
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`${this.url}: ${refused}`);
  }
}

/**
 * A bundle read by slices of Blobs the browser keeps out of the JS heap (nothing of it is held but the blocks questions
 * read): a dropped file, a whole download, or the parts of an offline copy (keptBundles.ts), all `partSize` bytes but
 * the last, where a range across two parts is put together from both.
 */
export class BlobRangeSource implements RangeSource {
  bytesRead = 0;
  readonly size: number;
  private readonly parts: readonly Blob[];

  constructor(
    blob: Blob | readonly Blob[],
    readonly name: string,
    private readonly partSize = blob instanceof Blob ? blob.size : (blob[0]?.size ?? 0),
  ) {
    this.parts = blob instanceof Blob ? [blob] : blob;
    this.size = this.parts.reduce((n, part) => n + part.size, 0);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.size)) {
      throw new Error(`${this.name}: ${length} bytes at ${offset} are past its end (${this.size} bytes)`);
    }
    const out = new Uint8Array(length);
    for (let at = 0; at < length;) {
      const part = Math.floor((offset + at) / this.partSize);
      const start = offset + at - part * this.partSize;
      const take = Math.min(length - at, this.partSize - start);
      out.set(new Uint8Array(await this.parts[part].slice(start, start + take).arrayBuffer()), at);
      at += take;
    }
    this.bytesRead += length;
    return out;
  }

  /**
   * Several ranges at once, all slices read together: the block store then hands a batch of runs to one call and
   * digests their blocks in one go, as for a host answering multi-range requests, instead of one run (and one turn of
   * WebCrypto) at a time.
   */
  readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    return Promise.all(ranges.map(([offset, length]) => this.read(offset, length)));
  }
}
