// The embedder spec grammar: every form reads back as itself, a bad spec is refused with the bad part named, and
// the ids derived from specs are the ones earlier versions wrote into libraries and bundles.
import { describe, expect, it } from 'vitest';
import {
  embedderIdOf,
  EmbedderSpecError,
  formatEmbedderSpec,
  parseEmbedderSpec,
  type EmbedderSpec,
} from '../../../src/core/embed/spec.ts';

describe('embedder specs', () => {
  it('round-trips every form', () => {
    const texts = [
      'use',
      'use:3',
      'hf:/models/all-MiniLM-L6-v2',
      'hf:https://example.org/models/bge-small/',
      'openai:http://localhost:11434/v1#nomic-embed-text:latest',
      'openai:https://api.openai.com/v1#text-embedding-3-small',
    ];
    for (const text of texts) expect(formatEmbedderSpec(parseEmbedderSpec(text))).toBe(text);
  });

  it('reads the parts of each form', () => {
    expect(parseEmbedderSpec('  use ')).toEqual({ kind: 'use' });
    expect(parseEmbedderSpec('use:2')).toEqual({ kind: 'use', workers: 2 });
    expect(parseEmbedderSpec('hf:./m')).toEqual({ kind: 'hf', model: './m' });
    // The model follows the last '#'.
    expect(parseEmbedderSpec('openai:http://h/v1#a#b')).toEqual({
      kind: 'openai',
      baseUrl: 'http://h/v1#a',
      model: 'b',
    });
  });

  it('reads an embedder id as the spec of that embedder', () => {
    expect(parseEmbedderSpec('use-lite@1')).toEqual({ kind: 'use' });
    for (const id of ['hf:/models/x', 'openai:http://127.0.0.1:9/v1#m']) {
      expect(embedderIdOf(parseEmbedderSpec(id))).toBe(id);
    }
  });

  it('derives the ids earlier versions recorded', () => {
    expect(embedderIdOf({ kind: 'use' })).toBe('use-lite@1');
    expect(embedderIdOf({ kind: 'use', workers: 4 })).toBe('use-lite@1');
    expect(embedderIdOf({ kind: 'hf', model: '/models/m/' })).toBe('hf:/models/m/');
    expect(embedderIdOf({ kind: 'openai', baseUrl: 'http://h:1/v1', model: 'e' })).toBe(
      'openai:http://h:1/v1#e',
    );
  });

  it('names the bad part of a spec', () => {
    const bad: Array<[string, RegExp]> = [
      ['', /'': empty; expected use, hf:/],
      ['word2vec', /unknown kind 'word2vec'/],
      ['bert:x', /unknown kind 'bert'/],
      ['use:two', /worker count after 'use:' must be a whole number ≥ 1, got 'two'/],
      ['use:0', /got '0'/],
      ['hf:', /no model folder or URL after 'hf:'/],
      ['hf:   ', /no model folder or URL after 'hf:'/],
      ['openai:http://x/v1', /no '#<model>' after the base URL/],
      ['openai:http://x/v1#', /no model name after '#'/],
      ['openai:#m', /no base URL between 'openai:' and '#'/],
      ['openai:ftp://x/v1#m', /the base URL 'ftp:\/\/x\/v1' must start with http:\/\/ or https:\/\//],
      ['openai:localhost:11434/v1#m', /the base URL 'localhost:11434\/v1' must start with http/],
      ['openai:http://x/v1# m', /the model name ' m' starts or ends with a space/],
    ];
    for (const [text, why] of bad) {
      let error: unknown;
      try {
        parseEmbedderSpec(text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(EmbedderSpecError);
      expect((error as Error).message, text).toMatch(why);
    }
  });

  it('refuses to write a spec that would read back as another embedder', () => {
    const bad: EmbedderSpec[] = [
      { kind: 'openai', baseUrl: 'http://x/v1', model: 'a#b' },
      { kind: 'hf', model: ' padded ' },
      { kind: 'hf', model: '' },
      { kind: 'openai', baseUrl: 'x/v1', model: 'm' },
      { kind: 'use', workers: 0 },
    ];
    for (const spec of bad)
      expect(() => formatEmbedderSpec(spec), JSON.stringify(spec)).toThrow(EmbedderSpecError);
  });
});
