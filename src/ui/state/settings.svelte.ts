// Settings state: the embedder choice and its endpoint fields, stored locally in the settings table
// (never exported). Switching embedders only applies to an empty library: the store never mixes two.
import { DEFAULT_EMBEDDER, type EmbedderChoice } from '../../services/protocol.ts';
import { pageRepo } from './db.ts';

export type EmbedderKind = EmbedderChoice['kind'];

export class SettingsState {
  kind = $state<EmbedderKind>('use');
  transformersModel = $state('');
  openaiBaseUrl = $state('http://localhost:11434/v1');
  openaiModel = $state('');
  openaiKey = $state('');
  saved = $state<string | null>(null);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    const choice = (await pageRepo().getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
    this.kind = choice.kind;
    if (choice.kind === 'transformers') this.transformersModel = choice.model;
    if (choice.kind === 'openai') {
      this.openaiBaseUrl = choice.baseUrl;
      this.openaiModel = choice.model;
      this.openaiKey = choice.apiKey;
    }
  }

  /** The choice the form describes, or an error naming the missing field. */
  choice(): EmbedderChoice | string {
    switch (this.kind) {
      case 'use':
        return { kind: 'use' };
      case 'transformers':
        if (!this.transformersModel.trim()) return 'Model URL or folder is required for transformers.js.';
        return { kind: 'transformers', model: this.transformersModel.trim() };
      case 'openai':
        if (!/^https?:\/\//.test(this.openaiBaseUrl.trim()))
          return 'Base URL must start with http:// or https://.';
        if (!this.openaiModel.trim()) return 'Model name is required for the embeddings endpoint.';
        return {
          kind: 'openai',
          baseUrl: this.openaiBaseUrl.trim().replace(/\/+$/, ''),
          model: this.openaiModel.trim(),
          apiKey: this.openaiKey,
        };
    }
  }

  async save(libraryEmbedder: string | null, libraryDocuments: number): Promise<void> {
    this.saved = null;
    this.error = null;
    const choice = this.choice();
    if (typeof choice === 'string') {
      this.error = choice;
      return;
    }
    await pageRepo().setSetting('embedder', choice);
    this.saved =
      libraryDocuments > 0 && libraryEmbedder !== null
        ? `Saved. This library was built with "${libraryEmbedder}"; new documents are only accepted from the same ` +
          'embedder, so remove all documents before indexing with another one.'
        : 'Saved. New documents will be embedded with this choice.';
  }
}

export const settings = new SettingsState();
