// `cli index --embedder openai:<url>#<model>` end to end against the scripted loopback server: the endpoint's
// dimension is learned from its first answer (nothing is sized from it before), the bundle records the spec's id
// and the server's dimension, every row is the server's embedding of that sentence, the key travels only in the
// Authorization header, a second run is served from the embedding cache, and `ask` embeds the question there.
// `bench --embedder openai:…` goes through the same loop.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as ask } from '../../../src/cli/ask.ts';
import { run as bench } from '../../../src/cli/bench.ts';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { run as index } from '../../../src/cli/index.ts';
import { EMBEDDINGS_KEY_ENV } from '../../../src/cli/keys.ts';
import {
  scriptedEmbedding,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';

const KEY = 'sk-embeddings-test-key-4711';
const DIMENSION = 20;

let dir = '';
let server: ScriptedLlmServer;
let savedKey: string | undefined;

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await fn(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

function normalized(v: number[]): number[] {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const embeddingRequests = (): number => server.requests.filter((r) => r.path === '/v1/embeddings').length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-index-openai-'));
  server = await startScriptedLlmServer({ apiKey: KEY, embeddingDimension: DIMENSION });
  savedKey = process.env[EMBEDDINGS_KEY_ENV];
  process.env[EMBEDDINGS_KEY_ENV] = KEY;
  await writeFile(join(dir, 'rivers.txt'), 'Rivers carry boats to the sea. The Rhine flows through Basel.');
  await writeFile(join(dir, 'mountains.md'), '# Alps\n\nSnow covers the peaks in winter.\n');
});

afterAll(async () => {
  if (savedKey === undefined) delete process.env[EMBEDDINGS_KEY_ENV];
  else process.env[EMBEDDINGS_KEY_ENV] = savedKey;
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cli index with an OpenAI-compatible embedder', () => {
  const spec = (): string => `openai:${server.baseUrl}#scripted-embedder`;
  const files = (): string[] => [join(dir, 'rivers.txt'), join(dir, 'mountains.md')];
  const cache = (): string => join(dir, 'cache');

  it('writes a bundle whose vectors are the server’s, with the server’s dimension', async () => {
    const out = join(dir, 'openai.bundle');
    const run = await capture(() =>
      index([...files(), '--out', out, '--embedder', spec(), '--vectors', 'f32', '--cache', cache()]),
    );
    expect(run.code).toBe(0);
    expect(embeddingRequests()).toBeGreaterThan(0);
    const bundle = await readBundleFile(out);
    expect(bundle.embedder).toEqual({ id: spec(), dimension: DIMENSION });
    expect(bundle.documents).toHaveLength(2);
    for (const doc of bundle.documents) {
      const sentences = bundle.sentences.filter((s) => s.docId === doc.id).sort((a, b) => a.index - b.index);
      const vectors = bundle.vectors.get(doc.id) as Float32Array;
      expect(vectors.length).toBe(sentences.length * DIMENSION);
      sentences.forEach((s, row) => {
        const expected = normalized(scriptedEmbedding(s.text, DIMENSION));
        const got = Array.from(vectors.subarray(row * DIMENSION, (row + 1) * DIMENSION));
        got.forEach((x, j) => expect(x).toBeCloseTo(expected[j], 5));
      });
    }
    for (const r of server.requests) expect(r.authorization).toBe(`Bearer ${KEY}`);
    expect(run.out + run.err).not.toContain(KEY);
  });

  it('builds the same bundle from the cache alone, without asking the endpoint', async () => {
    const before = embeddingRequests();
    const out = join(dir, 'cached.bundle');
    const run = await capture(() =>
      index([...files(), '--out', out, '--embedder', spec(), '--vectors', 'f32', '--cache', cache()]),
    );
    expect(run.code).toBe(0);
    expect(embeddingRequests()).toBe(before);
    const first = await readBundleFile(join(dir, 'openai.bundle'));
    const second = await readBundleFile(out);
    expect(second.embedder).toEqual({ id: spec(), dimension: DIMENSION });
    expect([...second.vectors.entries()]).toEqual([...first.vectors.entries()]);
  });

  it('answers a dense question from that bundle with the same embedder', async () => {
    const before = embeddingRequests();
    const run = await capture(() =>
      ask([
        join(dir, 'openai.bundle'),
        'Where does the Rhine flow?',
        '--mode',
        'dense',
        '--embedder',
        spec(),
        '--json',
      ]),
    );
    expect(run.code).toBe(0);
    expect(embeddingRequests()).toBe(before + 1);
    const parsed = JSON.parse(run.out) as { context: Array<{ text: string }> };
    expect(parsed.context[0].text).toContain('Rhine');
  });

  it('refuses an --into bundle of another embedder before embedding anything', async () => {
    const lexical = join(dir, 'lexical.bundle');
    await capture(() => index([files()[0], '--out', lexical, '--embedder', 'none', '--quiet']));
    const before = embeddingRequests();
    const other = `openai:${server.baseUrl}#other-model`;
    await expect(
      index([
        files()[1],
        '--into',
        join(dir, 'openai.bundle'),
        '--out',
        join(dir, 'x.bundle'),
        '--embedder',
        other,
      ]),
    ).rejects.toThrow(/was built with embedder openai:.*#scripted-embedder, not openai:.*#other-model/);
    expect(embeddingRequests()).toBe(before);
  });
});

describe('bench with an OpenAI-compatible embedder', () => {
  it('embeds the corpus and the questions at the server’s dimension and ranks densely', async () => {
    const corpus = [
      { id: 'p1', title: 'Rhine', text: 'The Rhine flows through Basel and Cologne.' },
      { id: 'p2', title: 'Alps', text: 'Snow covers the Alps in winter.' },
    ];
    const questions = [
      { id: 'q1', question: 'Which river flows through Basel?', answers: ['Rhine'], supporting: ['p1'] },
    ];
    await writeFile(join(dir, 'corpus.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await writeFile(join(dir, 'questions.jsonl'), questions.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const before = embeddingRequests();
    const out = join(dir, 'bench.json');
    const run = await capture(() =>
      bench([
        ...['--corpus', join(dir, 'corpus.jsonl'), '--questions', join(dir, 'questions.jsonl')],
        ...['--embedder', `openai:${server.baseUrl}#scripted-embedder`, '--cache', join(dir, 'bench-cache')],
        ...['--modes', 'dense', '--budgets', '1000', '--json', out],
      ]),
    );
    expect(run.code).toBe(0);
    // One call for the sentences, one for the question.
    expect(embeddingRequests()).toBe(before + 2);
    expect(run.err).toMatch(/bench: embedded (\d+)\/\1 sentences/);
    expect(run.err).toMatch(/bench: embedded 1\/1 questions/);
    const json = JSON.parse(await readFile(out, 'utf8')) as {
      modes: { dense: { recall: Record<string, number> } };
    };
    expect(Object.values(json.modes.dense.recall).every((r) => r === 1)).toBe(true);
    expect(run.out + run.err).not.toContain(KEY);
  });
});
