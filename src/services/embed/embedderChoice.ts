// Reads the 'embedder' setting in either shape it was ever stored in: the current { spec, apiKey? } or the older
// { kind: 'use' | 'transformers' | 'openai', … } objects, so a user who chose an embedder before specs keeps it.
// Platform-neutral: the page (Settings) and every worker read the setting through here. Beside the spec the setting
// may say how to run a local embedder: on how many embedding workers, and (USE-lite) on which TF.js backend; those
// never change which vectors an embedder gives beyond float rounding, so they are not part of its id.
import {
  embedderIdOf,
  isEndpointEmbedder,
  formatEmbedderSpec,
  parseEmbedderSpec,
  type EmbedderSpec,
} from '../../core/embed/index.ts';

/**
 * Which embedder indexes (and embeds questions), stored in the settings table under 'embedder': an embedder spec
 * (src/core/embed/spec.ts: `use`, `hf:<folder or URL>`, `openai:<baseUrl>#<model>`) and, for an endpoint, its
 * API key, kept beside the spec and never inside it.
 */
export interface EmbedderChoice {
  spec: string;
  apiKey?: string;
}

const DEFAULT_EMBEDDER: EmbedderChoice = { spec: 'use' };

/** The shape the 'embedder' setting had before embedder specs; still read, so a stored setting keeps working. */
type LegacyEmbedderChoice =
  | { kind: 'use' }
  | { kind: 'transformers'; model: string }
  | { kind: 'openai'; baseUrl: string; model: string; apiKey: string };

/** What the settings table may hold under 'embedder' (read here in either shape). */
export type StoredEmbedderChoice = EmbedderChoice | LegacyEmbedderChoice;

/** TF.js backend for USE-lite: 'auto' takes WebGL where the GPU is real hardware, else WASM. */
export type EmbedBackend = 'auto' | 'wasm' | 'webgl';
const EMBED_BACKENDS: readonly EmbedBackend[] = ['auto', 'wasm', 'webgl'];

/** An embedder choice with how to run it; absent fields mean 'auto'. */
export interface EmbedderSettings extends EmbedderChoice {
  /** Embedding workers (≥ 1); absent: one fewer than the machine's cores. */
  workers?: number;
  backend?: EmbedBackend;
}

/**
 * Most workers an automatic pool starts: each holds its own copy of the model (USE-lite: 28 MB of weights plus
 * TF.js's WASM heap), so a many-core machine should not start one per core unasked.
 */
export const MAX_AUTO_EMBED_WORKERS = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function fromLegacy(old: LegacyEmbedderChoice): EmbedderChoice {
  switch (old.kind) {
    case 'use':
      return { spec: 'use' };
    case 'transformers':
      return { spec: formatEmbedderSpec({ kind: 'hf', model: old.model.trim() }) };
    case 'openai': {
      // Earlier versions recorded the embedder id `openai:<baseUrl>#<model>` from exactly these fields: the spec
      // keeps them unchanged, so a library built then still matches.
      const spec = formatEmbedderSpec({ kind: 'openai', baseUrl: old.baseUrl, model: old.model });
      return typeof old.apiKey === 'string' && old.apiKey !== '' ? { spec, apiKey: old.apiKey } : { spec };
    }
  }
}

/**
 * The embedder choice a stored setting describes (DEFAULT_EMBEDDER when nothing is stored), with its spec
 * checked. Throws an error naming the bad part of a spec that cannot be read; never echoes a key.
 */
export function toEmbedderChoice(stored: unknown): EmbedderSettings {
  const choice = toBareChoice(stored);
  if (!isRecord(stored)) return choice;
  // How to run it is kept when valid and dropped (back to 'auto') when not: it never decides what is stored.
  const settings: EmbedderSettings = { ...choice };
  const { workers, backend } = stored;
  if (typeof workers === 'number' && Number.isInteger(workers) && workers >= 1) settings.workers = workers;
  if (typeof backend === 'string' && (EMBED_BACKENDS as readonly string[]).includes(backend)) {
    settings.backend = backend as EmbedBackend;
  }
  return settings;
}

function toBareChoice(stored: unknown): EmbedderChoice {
  if (stored === undefined || stored === null) return DEFAULT_EMBEDDER;
  if (typeof stored === 'string') return { spec: formatEmbedderSpec(parseEmbedderSpec(stored)) };
  if (isRecord(stored) && typeof stored.spec === 'string') {
    const spec = formatEmbedderSpec(parseEmbedderSpec(stored.spec));
    return typeof stored.apiKey === 'string' && stored.apiKey !== ''
      ? { spec, apiKey: stored.apiKey }
      : { spec };
  }
  if (isRecord(stored) && ['use', 'transformers', 'openai'].includes(stored.kind as string)) {
    const old = stored as LegacyEmbedderChoice;
    const fieldsOk =
      old.kind === 'use' ||
      (old.kind === 'transformers' && typeof old.model === 'string') ||
      (old.kind === 'openai' && typeof old.baseUrl === 'string' && typeof old.model === 'string');
    if (fieldsOk) return fromLegacy(old);
  }
  throw new Error(
    'embedder setting: the stored value is neither an embedder spec nor an older embedder choice',
  );
}

/** What can read the settings table: the store's repository, or a library source over it. */
export interface SettingsReader {
  getSetting<T>(key: string): Promise<T | undefined>;
}

/**
 * The chosen embedder: the 'embedder' setting read and checked (either stored shape; DEFAULT_EMBEDDER when none).
 * The one way the page, the workers and the services learn it; an unreadable setting throws, naming the bad part.
 */
export async function readEmbedderChoice(settings: SettingsReader): Promise<EmbedderSettings> {
  return toEmbedderChoice(await settings.getSetting<unknown>('embedder'));
}

/** The spec of a choice, parsed. */
export function specOf(choice: EmbedderChoice): EmbedderSpec {
  return parseEmbedderSpec(choice.spec);
}

/** The id the chosen embedder records in the library (compared with a library's or bundle's embedder id). */
export function choiceEmbedderId(choice: EmbedderChoice): string {
  return embedderIdOf(specOf(choice));
}

/**
 * Embedding workers for a choice on a machine with `cores` logical cores (navigator.hardwareConcurrency; unknown:
 * 1): the setting, else the worker count of a `use:<n>` spec, else cores − 1 (one core stays with the page and the
 * ingest worker's parsing and storing), at least 1 and at most MAX_AUTO_EMBED_WORKERS. An endpoint embedder
 * always gets 1: its work happens on the server, and it batches its own requests.
 */
export function embedWorkerCount(choice: EmbedderSettings, cores: number | undefined): number {
  const spec = specOf(choice);
  if (isEndpointEmbedder(spec)) return 1;
  if (choice.workers !== undefined) return choice.workers;
  if (spec.kind === 'use' && spec.workers !== undefined) return spec.workers;
  const known = typeof cores === 'number' && Number.isFinite(cores) && cores >= 1 ? Math.floor(cores) : 1;
  return Math.min(MAX_AUTO_EMBED_WORKERS, Math.max(1, known - 1));
}
