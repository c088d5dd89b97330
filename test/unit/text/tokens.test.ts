import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/core/text/tokens.ts';

describe('countTokens (cl100k_base)', () => {
  it('counts known strings', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
  });

  it('agrees with js-tiktoken encode() on mixed scripts, numbers, emoji and contractions', () => {
    const reference = new Tiktoken(cl100k);
    const samples = [
      '日本語のテキストです。',
      'antidisestablishmentarianism 12345678 $$$ \n\n  x',
      'é à ü 🎉 emoji',
      "I'm sure they're here, aren't they?",
      'Ermengarde of Tours (died 851) was the wife of Lothair I.',
      '  leading and trailing spaces  \n',
    ];
    for (const text of samples) expect(countTokens(text), text).toBe(reference.encode(text).length);
  });

  it('agrees with js-tiktoken encode() on 200 real passages and code, read from its own vocabulary', () => {
    const reference = new Tiktoken(cl100k);
    const lines = readFileSync(join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl'), 'utf8')
      .split('\n', 200)
      .map((line) => (JSON.parse(line) as { text: string }).text);
    const code =
      'const stream = fs.createReadStream(path, { highWaterMark: 1 << 20 }); // 读取文件 ✓\n\tx += 1;';
    for (const text of [...lines, code]) expect(countTokens(text), text).toBe(reference.encode(text).length);
  });

  it('treats special-token text as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('counts a 200 KB piece without spaces in bounded time', () => {
    const started = Date.now();
    const count = countTokens('x'.repeat(200_000));
    expect(count).toBeGreaterThan(200_000 / 64);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
