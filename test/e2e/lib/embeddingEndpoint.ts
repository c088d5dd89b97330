// An embedding endpoint whose pace the test sets, for the specs whose subject is what happens while sentences are
// embedded (a reload, Cancel, a second tab). With USE-lite in the browser such a spec raced the machine: a corpus
// that outlasted the act on a loaded machine was embedded whole before it on a quiet one (round six reverted three
// corpus cuts for that). Here the app embeds through the scripted OpenAI-compatible server on loopback, set as a
// user sets an endpoint embedder in Settings, and the server holds a request (`hold`) or takes a set time for each
// (`setEmbeddingLatency`): embedding cannot end before the test acts, however fast the machine.
import type { Page } from 'playwright-core';
import {
  startScriptedLlmServer,
  type ScriptedLlmServer,
  type ScriptedServerOptions,
} from '../../support/scriptedLlmServer.ts';
import { waitWhileIndexing } from './app.ts';
import type { RequestGuard } from './browser.ts';
import { putSettings } from './settings.ts';

/**
 * Starts the scripted server (its origin allowed by the test's privacy guard) and makes it the app's embedder:
 * call after openApp and before the drop. Close the server when the test ends. `options` as the server's (e.g.
 * `embeddingDimension: 512`, USE-lite's, where the size of a vector record matters).
 */
export async function embedThroughEndpoint(
  page: Page,
  privacy: RequestGuard,
  options: ScriptedServerOptions = {},
): Promise<ScriptedLlmServer> {
  const server = await startScriptedLlmServer(options);
  privacy.allowOrigin(server.url);
  await putSettings(page, { embedder: { spec: `openai:${server.baseUrl}#scripted-embedder` } });
  return server;
}

/**
 * Waits until the server holds one of the app's embedding requests (a `hold` step): the app is then embedding and
 * stays so until the test releases it. Throws if indexing ends first (it cannot while a request is held).
 */
export async function waitForHeldEmbedding(page: Page, server: ScriptedLlmServer): Promise<void> {
  await waitWhileIndexing(page, 'the embedding endpoint held a request', () =>
    Promise.resolve(server.embeddingsHeld() > 0),
  );
}
