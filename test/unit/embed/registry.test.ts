// The core embedder registry: one entry per kind (endpoint or local, create with the platform's part); specs and
// their ids are spec.test.ts's.
// The platform's part is what the test passes: which USE-lite loader runs, and the key and fetch an endpoint
// embedder's requests go through.
import { describe, expect, it } from 'vitest';
import {
  createEmbedder,
  isEndpointEmbedder,
  parseEmbedderSpec,
  type EmbedderPlatform,
} from '../../../src/core/embed/index.ts';
import type { Embedder } from '../../../src/core/types.ts';

const notUse: EmbedderPlatform['use'] = () => Promise.reject(new Error('USE-lite must not load here'));

describe('embedder registry', () => {
  it('says which kinds are endpoints', () => {
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
