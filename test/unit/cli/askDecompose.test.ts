// `cli ask --mode decompose --json` on a bundle built with an OpenAI-compatible embedder, against the scripted
// server on loopback: the output carries the trace and the usage, and every sub-question is embedded by the same
// embedder as the question (one /v1/embeddings request each), instead of being searched by words only. Over a
// bundle's pages (cli index --pages) the same run reads by ranges, as it runs over the whole bundle.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as ask } from '../../../src/cli/ask.ts';
import { run as index } from '../../../src/cli/index.ts';
import { captureCli as capture } from '../../support/captureCli.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../support/scriptedPike.ts';

let dir = '';
let server: ScriptedLlmServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-ask-decompose-'));
  server = await startScriptedLlmServer({
    embeddingDimension: 16,
    // Round 1 asks two sub-questions, round 2 none: the run stops with "nothing left to ask".
    responders: [scriptedPike({ propose: (v) => (v.context.length ? [] : ['Rhine Basel', 'Alps snow']) })],
  });
  await writeFile(join(dir, 'rivers.txt'), 'Rivers carry boats to the sea. The Rhine flows through Basel.');
  await writeFile(join(dir, 'mountains.txt'), 'Snow covers the Alps in winter.');
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cli ask --mode decompose', () => {
  it('prints the trace and embeds each sub-question with the bundle’s embedder', async () => {
    const spec = `openai:${server.baseUrl}#scripted-embedder`;
    const bundle = join(dir, 'x.bundle');
    const files = [join(dir, 'rivers.txt'), join(dir, 'mountains.txt')];
    expect(
      (await capture(() => index([...files, '--out', bundle, '--embedder', spec, '--quiet']))).code,
    ).toBe(0);
    server.reset();
    const run = await capture(() =>
      ask([
        ...[bundle, 'Where does the Rhine flow?', '--mode', 'decompose', '--embedder', spec, '--json'],
        ...['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model'],
      ]),
    );
    expect(run.code, run.err).toBe(0);
    const out = JSON.parse(run.out) as {
      answer: string;
      trace: Array<{ kind: string; round: number }>;
      usage: { calls: number };
      context: Array<{ text: string }>;
    };
    expect(out.trace.map((e) => `${e.round}:${e.kind}`)).toEqual([
      '1:propose',
      '1:search',
      '1:select',
      '2:propose',
      '2:stop',
    ]);
    expect(out.usage.calls).toBe(3);
    // Round 1 picked one candidate; round 2 proposed nothing.
    expect(out.context).toHaveLength(1);
    // The question, then the two sub-questions: three embedding requests, with those texts.
    const embedded = server.requests
      .filter((r) => r.path === '/v1/embeddings')
      .flatMap((r) => (r.body?.input as string[] | undefined) ?? []);
    expect(embedded).toEqual(['Where does the Rhine flow?', 'Rhine Basel', 'Alps snow']);
    expect(out.answer.length).toBeGreaterThan(0);
  });

  it('runs over a bundle’s pages by ranges, as over the whole bundle, and writes its answer', async () => {
    const bundle = join(dir, 'pages.bundle');
    const files = [join(dir, 'rivers.txt'), join(dir, 'mountains.txt')];
    const built = await capture(() =>
      index([...files, '--out', bundle, '--embedder', 'none', '--pages', '--quiet']),
    );
    expect(built.code, built.err).toBe(0);
    const asked = async (...extra: string[]) => {
      server.reset();
      const run = await capture(() =>
        ask([
          ...[bundle, 'Where does the Rhine flow?', '--mode', 'decompose', '--json', '--stats', ...extra],
          ...['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model'],
        ]),
      );
      expect(run.code, run.err).toBe(0);
      const out = JSON.parse(run.out) as {
        answer: string;
        trace: Array<{ kind: string; round: number; title: string }>;
        usage: { calls: number };
        context: Array<{ text: string }>;
      };
      const chats = server.requests.filter((r) => r.path === '/v1/chat/completions').length;
      return { err: run.err, out, chats };
    };
    const whole = await asked('--whole');
    const ranges = await asked();
    // Read by ranges (what it read is printed), the whole bundle not.
    expect(ranges.err).toMatch(/^ask: read \d+ bytes in \d+ rounds/m);
    expect(whole.err).not.toMatch(/^ask: read \d+ bytes/m);
    const run = (r: typeof whole) => ({
      trace: r.out.trace.map((e) => `${e.round}:${e.kind}:${e.title}`),
      calls: r.out.usage.calls,
      context: r.out.context,
      chats: r.chats,
    });
    expect(run(ranges)).toEqual(run(whole));
    expect(ranges.out.trace.map((e) => `${e.round}:${e.kind}`)).toEqual([
      '1:propose',
      '1:search',
      '1:select',
      '2:propose',
      '2:stop',
    ]);
    // The run's three calls and the written answer's.
    expect(ranges.chats).toBe(4);
    expect(ranges.out.context).toHaveLength(1);
    expect(ranges.out.answer.length).toBeGreaterThan(0);
  });
});
