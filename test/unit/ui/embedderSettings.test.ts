// The 'embedder' setting: a choice saved by an earlier version ({ kind, … } objects) still loads as the same
// embedder, the Settings form saves a spec with the key beside it, and the workers' EmbedderHolder takes either
// shape, reuses one embedder per spec and key, and never puts the key into what it reports.
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { pageRepo } from '../../../src/ui/state/db.ts';
import { SettingsState } from '../../../src/ui/state/settings.svelte.ts';
import { readEmbedderChoice, toEmbedderChoice } from '../../../src/services/embed/embedderChoice.ts';
import { choiceKey, EmbedderHolder } from '../../../src/services/embed/embedders.ts';

const KEY = 'sk-settings-key-0815';

beforeEach(async () => {
  await pageRepo().setSetting('embedder', undefined);
});

describe('reading a stored embedder setting', () => {
  it('converts every older choice object to the spec of the same embedder', () => {
    expect(toEmbedderChoice(undefined)).toEqual({ spec: 'use' });
    expect(toEmbedderChoice({ kind: 'use' })).toEqual({ spec: 'use' });
    expect(toEmbedderChoice({ kind: 'transformers', model: ' /models/minilm/ ' })).toEqual({
      spec: 'hf:/models/minilm/',
    });
    expect(
      toEmbedderChoice({ kind: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'nomic', apiKey: KEY }),
    ).toEqual({ spec: 'openai:http://localhost:11434/v1#nomic', apiKey: KEY });
    expect(toEmbedderChoice({ kind: 'openai', baseUrl: 'http://h/v1', model: 'm', apiKey: '' })).toEqual({
      spec: 'openai:http://h/v1#m',
    });
  });

  it('reads the current shape and a bare spec, and refuses what is neither', () => {
    expect(toEmbedderChoice({ spec: 'openai:http://h/v1#m', apiKey: KEY })).toEqual({
      spec: 'openai:http://h/v1#m',
      apiKey: KEY,
    });
    expect(toEmbedderChoice('hf:/m')).toEqual({ spec: 'hf:/m' });
    expect(() => toEmbedderChoice({ spec: 'openai:h/v1#m' })).toThrow(
      /base URL 'h\/v1' must start with http/,
    );
    expect(() => toEmbedderChoice({ kind: 'word2vec' })).toThrow(/neither an embedder spec nor an older/);
    expect(() => toEmbedderChoice(42)).toThrow(/neither an embedder spec nor an older/);
  });
});

describe('readEmbedderChoice (how the page, the workers and the services read the setting)', () => {
  it('reads the stored setting from the settings table in either shape, the default when none', async () => {
    const repo = pageRepo();
    expect(await readEmbedderChoice(repo)).toEqual({ spec: 'use' });
    await repo.setSetting('embedder', { kind: 'transformers', model: '/models/minilm/' });
    expect(await readEmbedderChoice(repo)).toEqual({ spec: 'hf:/models/minilm/' });
    await repo.setSetting('embedder', { spec: 'openai:http://h/v1#m', apiKey: KEY, workers: 2 });
    expect(await readEmbedderChoice(repo)).toEqual({ spec: 'openai:http://h/v1#m', apiKey: KEY, workers: 2 });
  });

  it('refuses an unreadable setting with the reason, without the key', async () => {
    await pageRepo().setSetting('embedder', { spec: 'openai:h/v1#m', apiKey: KEY });
    const read = readEmbedderChoice(pageRepo());
    await expect(read).rejects.toThrow(/base URL 'h\/v1' must start with http/);
    await expect(read).rejects.not.toThrow(KEY);
  });
});

describe('the Settings form', () => {
  it('shows a setting saved by an earlier version as the same choice', async () => {
    await pageRepo().setSetting('embedder', {
      kind: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
      apiKey: KEY,
    });
    const form = new SettingsState();
    await form.load();
    expect(form.error).toBeNull();
    expect([form.kind, form.openaiBaseUrl, form.openaiModel, form.openaiKey]).toEqual([
      'openai',
      'http://localhost:11434/v1',
      'nomic-embed-text',
      KEY,
    ]);

    await pageRepo().setSetting('embedder', { kind: 'transformers', model: '/models/minilm/' });
    const hf = new SettingsState();
    await hf.load();
    expect([hf.kind, hf.hfModel]).toEqual(['hf', '/models/minilm/']);
  });

  it('saves a spec with the key beside it, and says nothing about a mismatch when the library matches', async () => {
    const form = new SettingsState();
    form.kind = 'openai';
    form.openaiBaseUrl = ' http://localhost:11434/v1/ ';
    form.openaiModel = 'nomic-embed-text';
    form.openaiKey = KEY;
    await form.save('openai:http://localhost:11434/v1#nomic-embed-text', 3);
    expect(await pageRepo().getSetting('embedder')).toEqual({
      spec: 'openai:http://localhost:11434/v1#nomic-embed-text',
      apiKey: KEY,
    });
    expect(form.saved).toBe('Saved. New documents will be embedded with this choice.');
    await form.save('use-lite@1', 3);
    expect(form.saved).toMatch(/This library was built with "use-lite@1"/);

    // A key typed for an endpoint is not stored with another embedder.
    form.kind = 'use';
    await form.save(null, 0);
    expect(await pageRepo().getSetting('embedder')).toEqual({ spec: 'use' });
  });

  it('names the missing field', () => {
    const form = new SettingsState();
    form.kind = 'hf';
    expect(form.choice()).toBe('Model URL or folder is required for transformers.js.');
    form.kind = 'openai';
    form.openaiBaseUrl = 'localhost/v1';
    expect(form.choice()).toBe('Base URL must start with http:// or https://.');
  });

  it('reports a stored setting it cannot read instead of failing to open', async () => {
    await pageRepo().setSetting('embedder', { spec: 'bert:x' });
    const form = new SettingsState();
    await form.load();
    expect(form.error).toMatch(/unknown kind 'bert'/);
    expect(form.kind).toBe('use');
  });
});

describe('EmbedderHolder', () => {
  it('keys its memo by spec and whether a key is set, never by the key', () => {
    const key = choiceKey({ spec: 'openai:http://h/v1#m', apiKey: KEY });
    expect(key).toBe('openai:http://h/v1#m (with key)');
    expect(choiceKey({ spec: 'openai:http://h/v1#m' })).toBe('openai:http://h/v1#m');
  });

  it('reuses the embedder for the same choice in either shape and reloads when the key changes', async () => {
    const holder = new EmbedderHolder();
    try {
      const a = await holder.get({ spec: 'openai:http://127.0.0.1:9/v1#m', apiKey: KEY });
      const b = await holder.get({
        kind: 'openai',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
        apiKey: KEY,
      });
      expect(b).toBe(a);
      expect(a.id).toBe('openai:http://127.0.0.1:9/v1#m');
      const c = await holder.get({ spec: 'openai:http://127.0.0.1:9/v1#m', apiKey: 'sk-another-key' });
      expect(c).not.toBe(a);
    } finally {
      await holder.dispose();
    }
  });
});
