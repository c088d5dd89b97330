// The scripted server's `hold` step, which the e2e specs that act mid-embedding rely on (test/e2e/lib/
// embeddingEndpoint.ts): the app's OpenAI-compatible embedder stops at the held request until the test releases it.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbedder } from '../../../src/core/embed/openai.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function until(done: () => boolean): Promise<void> {
  // Bounded by the test's own time-out.
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the scripted server holding an embedding request', () => {
  it('answers the requests before a hold, stops at it until released, then answers the rest', async () => {
    server = await startScriptedLlmServer();
    server.scriptEmbeddings({ kind: 'ok' }, { kind: 'hold' });
    const embedder = createOpenAIEmbedder({
      baseUrl: server.baseUrl,
      model: 'scripted-embedder',
      batchSize: 1,
    });
    let settled = false;
    const rows = embedder.embed(['first', 'second', 'third']).finally(() => (settled = true));
    await until(() => server!.embeddingsHeld() === 1);
    expect(server.embeddedTexts).toEqual(['first']);
    expect(settled).toBe(false);
    server.releaseEmbeddings();
    expect((await rows).length).toBe(3 * embedder.dimension);
    expect(server.embeddedTexts).toEqual(['first', 'second', 'third']);
    expect(server.embeddingsHeld()).toBe(0);
  });

  it('drops a hold no request has reached when released', async () => {
    server = await startScriptedLlmServer();
    server.scriptEmbeddings({ kind: 'hold' });
    server.releaseEmbeddings();
    const embedder = createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'scripted-embedder' });
    await embedder.embed(['not held']);
    expect(server.embeddedTexts).toEqual(['not held']);
  });

  it('no longer counts a held request whose client went away', async () => {
    server = await startScriptedLlmServer();
    server.scriptEmbeddings({ kind: 'hold' });
    const embedder = createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'scripted-embedder' });
    const cancel = new AbortController();
    const rows = embedder.embed(['abandoned'], cancel.signal);
    await until(() => server!.embeddingsHeld() === 1);
    cancel.abort();
    await expect(rows).rejects.toThrow();
    await until(() => server!.embeddingsHeld() === 0);
    expect(server.embeddedTexts).toEqual([]);
  });
});
