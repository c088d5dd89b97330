// Settings state: the embedder choice and its endpoint fields, stored locally in the settings table (never
// exported) as an embedder spec plus, for an endpoint, its key beside the spec. Settings saved by earlier versions
// (the { kind, … } objects) are read and shown as the same choice. Switching embedders only applies to an empty
// library: the store never mixes two. How a local embedder runs (embedding workers, USE-lite's TF.js backend) is
// stored with the choice and can change at any time: it does not change the vectors beyond float rounding.
import { formatEmbedderSpec, parseEmbedderSpec, type EmbedderSpec } from '../../core/embed/index.ts';
import {
  choiceEmbedderId,
  embedWorkerCount,
  readEmbedderChoice,
  type EmbedBackend,
  type EmbedderSettings,
} from '../../services/embed/embedderChoice.ts';
import { isOcrLanguageSetting, type OcrLanguageSetting } from '../../core/parse/index.ts';
import { OCR_LANGUAGE_SETTING } from '../../services/ingest/ingestProtocol.ts';
import { pageRepo } from './db.ts';
import { messageOf } from '../../core/errors.ts';

export type EmbedderKind = EmbedderSpec['kind'];

const DEFAULT_BASE_URL = 'http://localhost:11434/v1';

export class SettingsState {
  kind = $state<EmbedderKind>('use');
  hfModel = $state('');
  openaiBaseUrl = $state(DEFAULT_BASE_URL);
  openaiModel = $state('');
  openaiKey = $state('');
  /** 'auto' or a worker count. */
  workers = $state('auto');
  backend = $state<EmbedBackend>('auto');
  saved = $state<string | null>(null);
  error = $state<string | null>(null);
  /** The language scanned pages are recognised in; 'auto' tells it from each document. */
  ocrLanguage = $state<OcrLanguageSetting>('auto');
  ocrLanguageSaved = $state<string | null>(null);

  async load(): Promise<void> {
    const ocrLanguage = await pageRepo()
      .getSetting<unknown>(OCR_LANGUAGE_SETTING)
      .catch(() => undefined);
    this.ocrLanguage = isOcrLanguageSetting(ocrLanguage) ? ocrLanguage : 'auto';
    let choice: EmbedderSettings;
    try {
      choice = await readEmbedderChoice(pageRepo());
    } catch (error) {
      this.error = `The stored embedder setting cannot be read (${messageOf(error)}); choose one and save.`;
      return;
    }
    this.show(choice);
  }

  /** Fills the form from a choice. */
  show(choice: EmbedderSettings): void {
    const spec = parseEmbedderSpec(choice.spec);
    this.kind = spec.kind;
    this.workers = choice.workers === undefined ? 'auto' : String(choice.workers);
    this.backend = choice.backend ?? 'auto';
    if (spec.kind === 'hf') this.hfModel = spec.model;
    if (spec.kind === 'openai') {
      this.openaiBaseUrl = spec.baseUrl;
      this.openaiModel = spec.model;
      this.openaiKey = choice.apiKey ?? '';
    }
  }

  /** Embedding workers 'auto' means on this device. */
  get autoWorkers(): number {
    return embedWorkerCount({ spec: 'use' }, globalThis.navigator?.hardwareConcurrency);
  }

  /** The choice the form describes, or an error naming the missing or bad field. */
  choice(): EmbedderSettings | string {
    let spec: EmbedderSpec;
    switch (this.kind) {
      case 'use':
        spec = { kind: 'use' };
        break;
      case 'hf':
        if (!this.hfModel.trim()) return 'Model URL or folder is required for transformers.js.';
        spec = { kind: 'hf', model: this.hfModel.trim() };
        break;
      case 'openai':
        if (!/^https?:\/\//.test(this.openaiBaseUrl.trim()))
          return 'Base URL must start with http:// or https://.';
        if (!this.openaiModel.trim()) return 'Model name is required for the embeddings endpoint.';
        spec = {
          kind: 'openai',
          baseUrl: this.openaiBaseUrl.trim().replace(/\/+$/, ''),
          model: this.openaiModel.trim(),
        };
        break;
    }
    let text: string;
    try {
      text = formatEmbedderSpec(spec);
    } catch (error) {
      return messageOf(error);
    }
    // Only an endpoint takes a key; a key typed for one is not kept when another embedder is chosen.
    if (spec.kind === 'openai')
      return this.openaiKey ? { spec: text, apiKey: this.openaiKey } : { spec: text };
    // How a local model runs; 'auto' is stored as nothing, so the default follows the device it runs on.
    const choice: EmbedderSettings = { spec: text };
    if (this.workers !== 'auto') {
      const n = Number(this.workers);
      if (!(Number.isInteger(n) && n >= 1)) return `Embedding workers must be auto or a whole number ≥ 1.`;
      choice.workers = n;
    }
    if (spec.kind === 'use' && this.backend !== 'auto') choice.backend = this.backend;
    return choice;
  }

  /** Stores the recognition language at once: the next scanned file the ingest pipeline parses reads it. */
  async saveOcrLanguage(value: OcrLanguageSetting): Promise<void> {
    this.ocrLanguage = value;
    this.ocrLanguageSaved = null;
    await pageRepo().setSetting(OCR_LANGUAGE_SETTING, value);
    this.ocrLanguageSaved =
      value === 'auto'
        ? 'Saved. Each scan’s language will be told from its text, or from its first page.'
        : 'Saved. Scans indexed from now on are read in this language.';
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
    const chosenId = choiceEmbedderId(choice);
    this.saved =
      libraryDocuments > 0 && libraryEmbedder !== null && libraryEmbedder !== chosenId
        ? `Saved. This library was built with "${libraryEmbedder}"; new documents are only accepted from the same ` +
          'embedder, so remove all documents before indexing with another one.'
        : 'Saved. New documents will be embedded with this choice.';
  }
}

export const settings = new SettingsState();
