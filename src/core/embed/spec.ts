// The one way to name an embedder, shared by the Settings view, the workers and every command line:
//   use                      the built-in USE-lite (`use:<n>` runs it on n worker threads where that is possible)
//   hf:<folder or URL>       a Hugging Face feature-extraction ONNX model (transformers.js)
//   openai:<baseUrl>#<model> an OpenAI-compatible /embeddings endpoint
// A spec never holds an API key: the Settings view keeps the key beside the spec, the CLI reads it from the
// environment or a key file. The id an embedder records in a library or bundle is derived from its spec
// (embedderIdOf), and an id is itself a valid spec, so ids already written by earlier versions keep matching.

/** USE-lite's id in libraries and bundles (kept as written by every earlier version). */
export const USE_EMBEDDER_ID = 'use-lite@1';

export type EmbedderSpec =
  | {
      kind: 'use';
      /** Worker threads (the CLI's pool); not part of the embedder's identity. */
      workers?: number;
    }
  | { kind: 'hf'; model: string }
  | { kind: 'openai'; baseUrl: string; model: string };

/** A spec that cannot be read; the message names the part that is wrong. */
export class EmbedderSpecError extends Error {
  constructor(spec: string, problem: string) {
    super(`embedder spec '${spec}': ${problem}`);
    this.name = 'EmbedderSpecError';
  }
}

const SPEC_FORMS = 'use, hf:<folder or URL>, openai:<baseUrl>#<model>';

function parseWorkers(spec: string, raw: string): number {
  const n = Number(raw);
  if (!(/^\d+$/.test(raw) && Number.isInteger(n) && n >= 1)) {
    throw new EmbedderSpecError(
      spec,
      `the worker count after 'use:' must be a whole number ≥ 1, got '${raw}'`,
    );
  }
  return n;
}

function checkBaseUrl(spec: string, baseUrl: string): void {
  if (!/^https?:\/\/[^/\s]/.test(baseUrl)) {
    throw new EmbedderSpecError(spec, `the base URL '${baseUrl}' must start with http:// or https://`);
  }
  if (/\s/.test(baseUrl)) throw new EmbedderSpecError(spec, `the base URL '${baseUrl}' contains a space`);
}

/** Reads a spec (surrounding spaces ignored); throws an EmbedderSpecError naming the bad part. */
export function parseEmbedderSpec(text: string): EmbedderSpec {
  const spec = text.trim();
  if (spec === 'use' || spec === USE_EMBEDDER_ID) return { kind: 'use' };
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  switch (kind) {
    case 'use':
    case USE_EMBEDDER_ID:
      return { kind: 'use', workers: parseWorkers(spec, rest) };
    case 'hf': {
      const model = rest.trim();
      if (!model) throw new EmbedderSpecError(spec, "no model folder or URL after 'hf:'");
      return { kind: 'hf', model };
    }
    case 'openai': {
      // The model follows the last '#': model names never hold one, and a base URL has no use for a fragment.
      const hash = rest.lastIndexOf('#');
      if (hash < 0)
        throw new EmbedderSpecError(spec, "no '#<model>' after the base URL (openai:<baseUrl>#<model>)");
      const baseUrl = rest.slice(0, hash);
      const model = rest.slice(hash + 1);
      if (!baseUrl) throw new EmbedderSpecError(spec, "no base URL between 'openai:' and '#'");
      checkBaseUrl(spec, baseUrl);
      if (!model.trim()) throw new EmbedderSpecError(spec, "no model name after '#'");
      if (model !== model.trim()) {
        throw new EmbedderSpecError(spec, `the model name '${model}' starts or ends with a space`);
      }
      return { kind: 'openai', baseUrl, model };
    }
    default:
      throw new EmbedderSpecError(
        spec,
        spec === '' ? `empty; expected ${SPEC_FORMS}` : `unknown kind '${kind}'; expected ${SPEC_FORMS}`,
      );
  }
}

/** Writes a spec; parseEmbedderSpec(formatEmbedderSpec(s)) gives `s` back. Throws on a spec that would not. */
export function formatEmbedderSpec(spec: EmbedderSpec): string {
  const text = formatKnown(spec);
  // Parsing names the bad part (an empty model, a base URL without http://); the comparison catches what
  // parses as another embedder (a model name holding '#', an hf model with surrounding spaces).
  if (!sameSpec(parseEmbedderSpec(text), spec)) {
    throw new EmbedderSpecError(
      text,
      'reads back as a different embedder (a model name with a # or spaces?)',
    );
  }
  return text;
}

function sameSpec(a: EmbedderSpec, b: EmbedderSpec): boolean {
  const fields = (s: EmbedderSpec): unknown[] =>
    s.kind === 'use'
      ? [s.kind, s.workers]
      : s.kind === 'hf'
        ? [s.kind, s.model]
        : [s.kind, s.baseUrl, s.model];
  return JSON.stringify(fields(a)) === JSON.stringify(fields(b));
}

function formatKnown(spec: EmbedderSpec): string {
  switch (spec.kind) {
    case 'use':
      return spec.workers === undefined ? 'use' : `use:${spec.workers}`;
    case 'hf':
      return `hf:${spec.model}`;
    case 'openai':
      return `openai:${spec.baseUrl}#${spec.model}`;
  }
}

/**
 * The id the embedder a spec names records in libraries and bundles, and reports as `Embedder.id`:
 * `use-lite@1`, `hf:<model>` or `openai:<baseUrl>#<model>` (the worker count is not part of it).
 */
export function embedderIdOf(spec: EmbedderSpec): string {
  return spec.kind === 'use' ? USE_EMBEDDER_ID : formatKnown(spec);
}

/** The spec text without the worker count: what decides which vectors an embedder gives. */
export function identitySpec(spec: EmbedderSpec): string {
  return spec.kind === 'use' ? 'use' : formatKnown(spec);
}
