// The Settings form's embedding workers and backend: saved beside the spec only when not 'auto', shown again after
// a reload, refused when not a whole number, never kept for an endpoint (it gets no pool).
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { pageRepo } from '../../../../src/ui/state/db.ts';
import { SettingsState } from '../../../../src/ui/state/settings.svelte.ts';

beforeEach(async () => {
  await pageRepo().setSetting('embedder', undefined);
});

describe('Settings: embedding workers and backend', () => {
  it('stores nothing extra for auto, and the chosen count and backend otherwise; they load back', async () => {
    const form = new SettingsState();
    await form.load();
    expect([form.workers, form.backend]).toEqual(['auto', 'auto']);
    expect(form.choice()).toEqual({ spec: 'use' });

    form.workers = '3';
    form.backend = 'webgl';
    await form.save(null, 0);
    expect(form.error).toBeNull();
    expect(await pageRepo().getSetting('embedder')).toEqual({ spec: 'use', workers: 3, backend: 'webgl' });

    const again = new SettingsState();
    await again.load();
    expect([again.kind, again.workers, again.backend]).toEqual(['use', '3', 'webgl']);
  });

  it('refuses a worker count that is not a whole number ≥ 1', async () => {
    const form = new SettingsState();
    form.workers = '0';
    await form.save(null, 0);
    expect(form.error).toMatch(/Embedding workers must be auto or a whole number ≥ 1/);
    expect(await pageRepo().getSetting('embedder')).toBeUndefined();
  });

  it('keeps the worker count for a transformers.js model but no backend, and neither for an endpoint', () => {
    const form = new SettingsState();
    form.workers = '2';
    form.backend = 'wasm';
    form.kind = 'hf';
    form.hfModel = '/models/tiny/';
    expect(form.choice()).toEqual({ spec: 'hf:/models/tiny/', workers: 2 });
    form.kind = 'openai';
    form.openaiModel = 'nomic';
    expect(form.choice()).toEqual({ spec: 'openai:http://localhost:11434/v1#nomic' });
  });
});
