// Reads the 'embedder' setting in either shape it was ever stored in: the current { spec, apiKey? } or the older
// { kind: 'use' | 'transformers' | 'openai', … } objects, so a user who chose an embedder before specs keeps it.
// Platform-neutral: the page (Settings) and every worker read the setting through here.
import {
  embedderIdOf,
  formatEmbedderSpec,
  parseEmbedderSpec,
  type EmbedderSpec,
} from '../core/embed/spec.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice, type LegacyEmbedderChoice } from './protocol.ts';

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
export function toEmbedderChoice(stored: unknown): EmbedderChoice {
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

/** The spec of a choice, parsed. */
export function specOf(choice: EmbedderChoice): EmbedderSpec {
  return parseEmbedderSpec(choice.spec);
}

/** The id the chosen embedder records in the library (compared with a library's or bundle's embedder id). */
export function choiceEmbedderId(choice: EmbedderChoice): string {
  return embedderIdOf(specOf(choice));
}
