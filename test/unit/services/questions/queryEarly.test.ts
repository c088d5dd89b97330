// The query service's staged answer and warm library: early lexical evidence while the question model loads,
// then the result exactly as without early evidence; no early evidence once the model is warm; while the library
// reloads after a change, early evidence from the library as it was (marked stale) and the result from the new
// one; never early evidence from the local library once a bundle is opened read-only; none for `dense`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotFromFiles } from '../../../../src/cli/index.ts';
import { writeSnapshotBundle, type IndexSnapshot } from '../../../../src/core/bundle/index.ts';
import type { Embedder } from '../../../../src/core/types.ts';
import { snapshotToCorpus } from '../../../../src/store/bundleImport.ts';
import { openBundleReadOnly } from '../../../../src/services/bundleBytes/bundleFetch.ts';
import type { LoadedCorpus } from '../../../../src/store/repo.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import type { AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { scriptedEmbedding } from '../../../support/scriptedLlmServer.ts';

const DOCUMENTS: Record<string, string> = {
  'lovelace.txt':
    'Ada Lovelace wrote the first published program for the Analytical Engine in 1843. She translated an article by Luigi Menabrea.',
  'babbage.txt':
    'Charles Babbage designed the Analytical Engine in London. His earlier Difference Engine was never finished. He also wrote on the economy of machinery.',
  'turin.txt': 'Turin is a city in northern Italy. Babbage presented his engine there in 1840.',
  'somerville.txt':
    'Mary Somerville introduced Ada Lovelace to Charles Babbage. She was a Scottish scientist and writer.',
};
const LATER = { 'menabrea.txt': 'Luigi Menabrea wrote an article on the engine of Babbage in French.' };
const QUESTION = 'Who wrote the first published program for the Analytical Engine?';
const ORIGIN = 'http://app.test';

/** Character-trigram vectors (unit length): texts that share words are close, so the dense layer is real. */
function trigramEmbedder(): Embedder {
  const dimension = 64;
  return {
    id: 'trigram@64',
    dimension,
    async embed(texts) {
      const out = new Float32Array(texts.length * dimension);
      texts.forEach((t, i) => {
        const v = scriptedEmbedding(t, dimension);
        const n = Math.hypot(...v) || 1;
        v.forEach((x, j) => (out[i * dimension + j] = x / n));
      });
      return out;
    },
  };
}

/** An embedder holder whose model "loads" when the test says so (release()), as a model download would. */
function gatedHolder() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    loads: 0,
    async get() {
      this.loads += 1;
      await gate;
      return trigramEmbedder();
    },
    async dispose() {},
  };
}

let dir: string;
const snapshots = new Map<string, IndexSnapshot>();

async function snapshotOf(documents: Record<string, string>): Promise<IndexSnapshot> {
  const key = Object.keys(documents).join();
  const known = snapshots.get(key);
  if (known) return known;
  const files: string[] = [];
  for (const [name, text] of Object.entries(documents)) {
    await writeFile(join(dir, name), text);
    files.push(join(dir, name));
  }
  const { snapshot } = await snapshotFromFiles(files, { embedder: trigramEmbedder(), maxChunkTokens: 1200 });
  snapshots.set(key, snapshot);
  return snapshot;
}

/** A service over a library that starts as `corpus()` says (changed by the test between loads). */
function service(
  corpus: () => Promise<LoadedCorpus>,
  embedders: ReturnType<typeof gatedHolder>,
  bundles: Record<string, Blob> = {},
  /** What is stored now, read without waiting for a load (default: as `corpus()` says). */
  storedNow: () => Promise<LoadedCorpus> = corpus,
) {
  const counts = { corpusLoads: 0 };
  const query = new QueryService({
    library: {
      loadCorpus: () => {
        counts.corpusLoads += 1;
        return corpus();
      },
      // As Repo.storedDocuments: those of these documents that are stored now (none of the removed).
      storedDocuments: async (docIds) => {
        const stored = (await storedNow()).documents;
        return new Set(stored.filter((d) => docIds.includes(d.id)).map((d) => d.id));
      },
      getSetting: async () => undefined,
    },
    kgStore: { entities: async () => [], relations: async () => [] },
    embedders,
    openBundle: (url) =>
      openBundleReadOnly(url, ORIGIN, async (input) => {
        const blob = bundles[new URL(String(input)).pathname];
        return blob ? new Response(blob) : new Response('missing', { status: 404 });
      }),
    llmClient: () => {
      throw new Error('no LLM in these tests');
    },
  });
  return { query, counts };
}

const ids = (r: AskResult) => r.evidence.map((e) => e.chunkId);
const titles = (r: AskResult) => r.evidence.map((e) => e.docTitle);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'query-early-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('QueryService: early evidence and a warm library', () => {
  it('sends lexical evidence while the model loads, then the result as asked without it', async () => {
    const base = snapshotToCorpus(await snapshotOf(DOCUMENTS));
    const embedders = gatedHolder();
    const { query } = service(async () => base, embedders);
    const early: AskResult[] = [];
    const asking = query.ask({ question: QUESTION, mode: 'ppr', budget: 2000 }, (r) => {
      early.push(r);
      embedders.release(); // the model arrives only after the early evidence was sent
    });
    const result = await asking;
    expect(early).toHaveLength(1);
    expect(early[0]).toMatchObject({ stage: 'early', layer: 'lexical', stale: false, mode: 'ppr' });
    expect(titles(early[0])[0]).toBe('lovelace');
    expect(result.stage).toBeUndefined();
    expect(result.layer).toBe('semantic');
    expect(result.rankingChanged).toBe(!ids(early[0]).every((id, i) => ids(result)[i] === id));

    // The result is the mode's ranking with the vector, the same as a question asked without early evidence;
    // with the model warm, no early evidence is sent.
    const again: AskResult[] = [];
    const plain = await query.ask({ question: QUESTION, mode: 'ppr', budget: 2000 }, (r) => again.push(r));
    expect(again).toEqual([]);
    expect(ids(plain)).toEqual(ids(result));
    expect(plain.evidence.map((e) => e.bestSentences)).toEqual(result.evidence.map((e) => e.bestSentences));
    expect(plain.rankingChanged).toBeUndefined();
    expect(embedders.loads).toBe(1);
  });

  it('dense has no early evidence; the KG modes are not staged', async () => {
    const base = snapshotToCorpus(await snapshotOf(DOCUMENTS));
    const embedders = gatedHolder();
    const { query } = service(async () => base, embedders);
    const early: AskResult[] = [];
    const dense = query.ask({ question: QUESTION, mode: 'dense', budget: 2000 }, (r) => early.push(r));
    const kg = query.ask({ question: QUESTION, mode: 'kg', budget: 2000 }, (r) => early.push(r));
    await new Promise((r) => setTimeout(r, 50));
    embedders.release();
    expect((await dense).layer).toBe('semantic');
    await kg;
    expect(early).toEqual([]);
  });

  it('while the library reloads after a change: stale early evidence from before, the result from after', async () => {
    const before = snapshotToCorpus(await snapshotOf(DOCUMENTS));
    const after = snapshotToCorpus(await snapshotOf({ ...DOCUMENTS, ...LATER }));
    let current = before;
    let hold: Promise<void> = Promise.resolve();
    const embedders = gatedHolder();
    embedders.release();
    const { query, counts } = service(
      async () => {
        await hold;
        return current;
      },
      embedders,
      {},
      async () => current,
    );
    await query.warmUp();
    expect(counts.corpusLoads).toBe(1);

    // A document is added; the new library takes a while to load.
    current = after;
    let loaded: () => void = () => undefined;
    hold = new Promise<void>((resolve) => (loaded = resolve));
    query.invalidate();
    const question = 'Who wrote an article in French on the engine of Babbage?';
    const early: AskResult[] = [];
    const asking = query.ask({ question, mode: 'bm25', budget: 2000 }, (r) => {
      early.push(r);
      loaded();
    });
    const result = await asking;
    expect(early).toHaveLength(1);
    expect(early[0]).toMatchObject({ stage: 'early', stale: true, layer: 'lexical' });
    expect(titles(early[0])).not.toContain('menabrea');
    expect(titles(result)[0]).toBe('menabrea');
    expect(result.rankingChanged).toBe(true);
    expect(counts.corpusLoads).toBe(2);

    // Loaded: no stale evidence any more.
    const next: AskResult[] = [];
    await query.ask({ question, mode: 'bm25', budget: 2000 }, (r) => next.push(r));
    expect(next).toEqual([]);
  });

  it('stale early evidence never cites a document removed since the library it comes from loaded', async () => {
    const before = snapshotToCorpus(await snapshotOf(DOCUMENTS));
    const { ['lovelace.txt']: _removed, ...rest } = DOCUMENTS;
    const after = snapshotToCorpus(await snapshotOf(rest));
    let current = before;
    let hold: Promise<void> = Promise.resolve();
    const embedders = gatedHolder();
    embedders.release();
    const { query } = service(
      async () => {
        await hold;
        return current;
      },
      embedders,
      {},
      async () => current,
    );
    await query.warmUp();
    const lovelace = before.documents.find((d) => d.title === 'lovelace')!.id;

    // Lovelace's document is removed; the library without it takes a while to load. The library of before ranks it
    // first for this question, so stale evidence read from it as it was would cite it.
    current = after;
    let loaded: () => void = () => undefined;
    hold = new Promise<void>((resolve) => (loaded = resolve));
    query.invalidate();
    const early: AskResult[] = [];
    const asking = query.ask({ question: QUESTION, mode: 'bm25', budget: 2000 }, (r) => {
      early.push(r);
      loaded();
    });
    setTimeout(loaded, 200); // should no early evidence come, the load goes on all the same
    const result = await asking;
    expect(early).toHaveLength(1);
    expect(early[0]).toMatchObject({ stage: 'early', stale: true, layer: 'lexical' });
    expect(early[0].evidence.length).toBeGreaterThan(0);
    expect(early[0].evidence.map((e) => e.docId)).not.toContain(lovelace);
    expect(result.evidence.map((e) => e.docId)).not.toContain(lovelace);
  });

  it('questions asked while the library keeps changing read one library at a time, and the last answers', async () => {
    // A drop: every store write changes the library, and a question comes every second, each loading slower than
    // that. Each question used to start a load of its own beside those in flight (805 MB on docs-scale).
    const before = snapshotToCorpus(await snapshotOf(DOCUMENTS));
    const after = snapshotToCorpus(await snapshotOf({ ...DOCUMENTS, ...LATER }));
    let current = before;
    const gates: (() => void)[] = [];
    let reading = 0;
    let mostAtOnce = 0;
    const embedders = gatedHolder();
    embedders.release();
    const { query, counts } = service(async () => {
      reading += 1;
      mostAtOnce = Math.max(mostAtOnce, reading);
      await new Promise<void>((resolve) => gates.push(resolve));
      reading -= 1;
      return current;
    }, embedders);
    const question = 'Who wrote an article in French on the engine of Babbage?';
    const asks: Promise<AskResult>[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 4) current = after;
      query.invalidate();
      asks.push(query.ask({ question, mode: 'bm25', budget: 2000 }));
      await new Promise((r) => setTimeout(r, 0));
    }
    // Let every load that was begun end, as the loads come.
    while (
      (await Promise.race([
        Promise.all(asks).then(() => true),
        new Promise((r) => setTimeout(r, 5, false)),
      ])) === false
    )
      gates.splice(0).forEach((open) => open());
    expect(mostAtOnce).toBe(1);
    // The first load, then one for all the changes made while it ran (not one per question).
    expect(counts.corpusLoads).toBe(2);
    const last = await asks[4];
    expect(titles(last)[0]).toBe('menabrea');
  });

  it('a read-only bundle never gets early evidence from the local library, and loads the model meanwhile', async () => {
    const local = snapshotToCorpus(await snapshotOf(LATER));
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for await (const part of writeSnapshotBundle(await snapshotOf(DOCUMENTS), { appVersion: 'test' }))
      parts.push(part as Uint8Array<ArrayBuffer>);
    const bundle = new Blob(parts);
    const embedders = gatedHolder();
    const { query, counts } = service(async () => local, embedders, { '/b/x.bundle': bundle });
    embedders.release();
    await query.warmUp();
    query.invalidate(); // the local library changed: its engine is now the fallback…
    const opening = query.openBundle('/b/x.bundle');
    const early: AskResult[] = [];
    // …but not for a question asked while the bundle downloads.
    const result = await query.ask({ question: QUESTION, mode: 'ppr', budget: 2000 }, (r) => early.push(r));
    await opening;
    expect(early.every((r) => !r.stale && !titles(r).includes('menabrea'))).toBe(true);
    expect(titles(result)[0]).toBe('lovelace');
    expect(counts.corpusLoads).toBe(1);
    expect(embedders.loads).toBe(1);
  });
});
