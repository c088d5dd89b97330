// createEmbedderFromSpec: the three spec forms (grammar: src/core/embed/spec.ts), bad specs, and a Hugging Face model served over loopback HTTP
// (the URL path of the transformers embedder; the Hugging Face hub itself must never be asked).
import { createReadStream, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedderFromSpec } from '../../../src/cli/embedders.ts';
import { dot } from '../../../src/core/embed/vectors.ts';
import { ensureTinyBert, TINY_BERT_DIR } from './tinyBert.ts';

const missing = ensureTinyBert();
if (missing) console.warn(`SKIPPING the hf:<URL> test: ${missing}`);

describe('createEmbedderFromSpec', () => {
  it('rejects unknown and malformed specs with the expected shape in the message', async () => {
    await expect(createEmbedderFromSpec('word2vec')).rejects.toThrow(/unknown kind 'word2vec'/);
    await expect(createEmbedderFromSpec('hf:')).rejects.toThrow(/no model folder or URL after 'hf:'/);
    await expect(createEmbedderFromSpec('openai:http://x/v1')).rejects.toThrow(/openai:<baseUrl>#<model>/);
    await expect(createEmbedderFromSpec('openai:http://x/v1#')).rejects.toThrow(/no model name after '#'/);
  });

  it('builds an OpenAI embedder without contacting the endpoint', async () => {
    const e = await createEmbedderFromSpec('openai:http://127.0.0.1:9/v1#text-embedding-3-small');
    expect(e.id).toBe('openai:http://127.0.0.1:9/v1#text-embedding-3-small');
  });

  it.skipIf(missing !== null)('builds a transformers embedder from a local folder', async () => {
    const e = await createEmbedderFromSpec(`hf:${TINY_BERT_DIR}`);
    expect([e.id, e.dimension]).toEqual([`hf:${TINY_BERT_DIR}`, 32]);
  });
});

describe.skipIf(missing !== null)('hf:<http URL> loads the model over HTTP from that server only', () => {
  let server: Server;
  let base: string;
  const requested: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      requested.push(url);
      const rel = normalize(decodeURIComponent(url.split('?')[0])).replace(/^[/\\]+/, '');
      const file = join(TINY_BERT_DIR, '..', rel);
      if (!rel.startsWith('tiny-bert') || !existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200);
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('embeds like the local folder does', async () => {
    const remote = await createEmbedderFromSpec(`hf:${base}/tiny-bert`);
    const local = await createEmbedderFromSpec(`hf:${TINY_BERT_DIR}`);
    expect(remote.id).toBe(`hf:${base}/tiny-bert`);
    const a = await remote.embed(['the city of london']);
    const b = await local.embed(['the city of london']);
    expect(dot(a, b)).toBeCloseTo(1, 5);
    expect(requested).toEqual(
      expect.arrayContaining([
        '/tiny-bert/config.json',
        '/tiny-bert/tokenizer.json',
        '/tiny-bert/tokenizer_config.json',
        '/tiny-bert/onnx/model_quantized.onnx',
      ]),
    );
  });
});
