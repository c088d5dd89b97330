// The core embedder registry: one entry per kind (parse, id, endpoint or local, create with the platform's part).
// The platform's part is what the test passes: which USE-lite loader runs, and the key and fetch an endpoint
// embedder's requests go through.
import { describe, expect, it } from 'vitest';
import {
  createEmbedder,
  EMBEDDER_KINDS,
  isEndpointEmbedder,
  parseEmbedderSpec,
  type EmbedderPlatform,
} from '../../../src/core/embed/index.ts';
import type { Embedder } from '../../../src/core/types.ts';

const notUse: EmbedderPlatform['use'] = () => Promise.reject(new Error('USE-lite must not load here'));

describe('embedder registry', () => {
  it('reads each kind, names its id, and says which are endpoints', () => {
    expect(EMBEDDER_KINDS.use.parse('use:3')).toEqual({ kind: 'use', workers: 3 });
    expect(EMBEDDER_KINDS.use.id({ kind: 'use', workers: 3 })).toBe('use-lite@1');
    expect(EMBEDDER_KINDS.hf.id(EMBEDDER_KINDS.hf.parse('hf:/models/mini'))).toBe('hf:/models/mini');
    expect(EMBEDDER_KINDS.openai.id(EMBEDDER_KINDS.openai.parse('openai:http://h/v1#e5'))).toBe(
      'openai:http://h/v1#e5',
    );
    expect(() => EMBEDDER_KINDS.hf.parse('use')).toThrow(/'use' is of kind 'use', not 'hf'/);
    expect(isEndpointEmbedder(parseEmbedderSpec('openai:http://h/v1#e5'))).toBe(true);
    expect(isEndpointEmbedder(parseEmbedderSpec('use'))).toBe(false);
    expect(isEndpointEmbedder(parseEmbedderSpec('hf:/m'))).toBe(false);
  });

  it("creates USE-lite with the platform's loader, given the spec it read", async () => {
    const made: Embedder = { id: 'use-lite@1', dimension: 512, embed: async () => new Float32Array(512) };
    const asked: unknown[] = [];
    const embedder = await createEmbedder('use:2', {
      use: async (spec) => {
        asked.push(spec);
        return made;
      },
    });
    expect(embedder).toBe(made);
    expect(asked).toEqual([{ kind: 'use', workers: 2 }]);
  });

  it("sends an endpoint embedder's requests through the platform's fetch, with its key", async () => {
    const requests: Array<{ url: string; auth: string | null; body: unknown }> = [];
    const fetchHere = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      requests.push({
        url: String(input),
        auth: headers.get('authorization'),
        body: JSON.parse(String(init?.body)),
      });
      return new Response(JSON.stringify({ data: [{ index: 0, embedding: [3, 4] }] }), {
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    const embedder = await createEmbedder('openai:http://127.0.0.1:9/v1#e5', {
      use: notUse,
      openai: { apiKey: 'sk-test', fetch: fetchHere },
    });
    expect(embedder.id).toBe('openai:http://127.0.0.1:9/v1#e5');
    const rows = await embedder.embed(['one question']);
    expect(rows.length).toBe(2);
    expect(requests).toHaveLength(1);
    expect(requests[0].url).toBe('http://127.0.0.1:9/v1/embeddings');
    expect(requests[0].auth).toBe('Bearer sk-test');
    expect(requests[0].body).toMatchObject({ model: 'e5', input: ['one question'] });
  });
});
