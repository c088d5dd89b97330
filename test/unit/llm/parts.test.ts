import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../../src/core/llm/backoff.ts';
import { redact } from '../../../src/core/llm/errors.ts';
import { Semaphore } from '../../../src/core/llm/semaphore.ts';
import { apiRoot, validateLlmSettings, DEFAULT_LLM_SETTINGS } from '../../../src/core/llm/settings.ts';
import { SseParser } from '../../../src/core/llm/sse.ts';

describe('SseParser', () => {
  it('joins events split across chunks and CRLF line ends, skipping comments', () => {
    const p = new SseParser();
    expect(p.push('data: {"a"')).toEqual([]);
    expect(p.push(':1}\r')).toEqual([]);
    expect(p.push('\n\r\n: keep-alive\n\ndata: x\ndata: y\n\n')).toEqual(['{"a":1}', 'x\ny']);
    expect(p.push('data: [DONE]')).toEqual([]);
    expect(p.end()).toEqual(['[DONE]']);
  });
});

describe('backoff', () => {
  it('doubles with equal jitter and caps at maxMs', () => {
    const opts = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, undefined, opts, () => 0)).toBe(50);
    expect(backoffDelay(0, undefined, opts, () => 0.999999)).toBe(99);
    expect(backoffDelay(3, undefined, opts, () => 0)).toBe(400);
    expect(backoffDelay(10, undefined, opts, () => 0)).toBe(500);
  });
  it('honours Retry-After in seconds and as an HTTP date', () => {
    expect(backoffDelay(0, 2, { baseMs: 100, maxMs: 1000 }, () => 0)).toBe(2000);
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('redact', () => {
  it('removes the key and its echoed head or tail', () => {
    const key = 'sk-abcdefgh12345678';
    expect(redact(`bad key ${key}`, key)).toBe('bad key ***');
    expect(redact('Incorrect key sk-abcde*****345678', key)).not.toContain('345678');
    expect(redact('nothing here', '')).toBe('nothing here');
  });

  it('removes partial echoes from the middle and encoded echoes (issue 43)', () => {
    const key = 'sk-proj-Q7xv9+Lm/2Pa8Rt5Wz';
    const leaks = [
      'key ending in ...Lm/2Pa8Rt5Wz was rejected', // the tail, longer than before
      'invalid key fragment Q7xv9+Lm/2 in request', // the middle
      `invalid token ${encodeURIComponent(key)}`, // URL-encoded
      `{"error":"bad key ${JSON.stringify(key).slice(1, -1)}"}`, // JSON-escaped
      `Authorization: Basic ${btoa(key)}`, // base64
      `${btoa(key).slice(4, 20)} is not a known key`, // part of the base64
    ];
    for (const text of leaks) {
      const out = redact(text, key);
      expect(out, text).toContain('***');
      // No run of 6 characters of the key (or of an encoded form) survives.
      for (const form of [key, encodeURIComponent(key), btoa(key)])
        for (let i = 0; i + 6 <= form.length; i++) expect(out, text).not.toContain(form.slice(i, i + 6));
    }
    // Ordinary words are left alone.
    expect(redact('the model was not found', key)).toBe('the model was not found');
  });
});

describe('Semaphore', () => {
  it('grants in order, never above the limit, and drops waiters that abort', async () => {
    const s = new Semaphore(1);
    const r1 = await s.acquire();
    const controller = new AbortController();
    const waiting = s.acquire(controller.signal);
    const order: string[] = [];
    const next = s.acquire().then((r) => {
      order.push('third');
      return r;
    });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(s.inFlight).toBe(1);
    r1();
    (await next)();
    expect(order).toEqual(['third']);
    expect(s.inFlight).toBe(0);
  });
});

describe('settings', () => {
  it('normalizes the API root and validates fields', () => {
    expect(apiRoot('http://h:1/')).toBe('http://h:1/v1');
    expect(apiRoot('http://h:1/v1/')).toBe('http://h:1/v1');
    expect(validateLlmSettings({ ...DEFAULT_LLM_SETTINGS, model: 'm' })).toEqual([]);
    const bad = validateLlmSettings({
      ...DEFAULT_LLM_SETTINGS,
      baseUrl: 'ftp://x',
      model: ' ',
      concurrency: 0,
    });
    expect(bad).toHaveLength(3);
    expect(bad[0]).toContain('ftp:');
  });
});
