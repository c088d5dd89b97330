// The service worker's split of the precache manifest (onnxruntime's WASM cached on first use, the rest at
// install) and the lazily filled cache's versioned name.
import { describe, expect, it } from 'vitest';
import { LAZY_CACHE_PREFIX, lazyCacheName, ownAnswer, splitManifest } from '../../../src/sw/manifest.ts';

const entries = [
  { url: 'index.html', revision: 'a1' },
  { url: 'assets/index-AbC.js', revision: null },
  { url: 'models/use/group1-shard1of7', revision: 'm1' },
  { url: 'ort/ort-wasm.wasm', revision: 'o1' },
  { url: 'ort/ort-wasm-simd.wasm', revision: 'o2' },
];

describe('splitManifest', () => {
  it('caches onnxruntime lazily and everything else (model, shell, bundles) at install', () => {
    const { eager, lazy } = splitManifest(entries);
    expect(lazy.map((e) => e.url)).toEqual(['ort/ort-wasm.wasm', 'ort/ort-wasm-simd.wasm']);
    expect(eager.map((e) => e.url)).toEqual([
      'index.html',
      'assets/index-AbC.js',
      'models/use/group1-shard1of7',
    ]);
  });
});

describe('lazyCacheName', () => {
  const lazy = splitManifest(entries).lazy;

  it('is stable for the same files in any order', () => {
    expect(lazyCacheName(lazy)).toBe(lazyCacheName([...lazy].reverse()));
    expect(lazyCacheName(lazy)).toMatch(new RegExp(`^${LAZY_CACHE_PREFIX}[0-9a-f]{8}$`));
  });

  it('changes when a binary changes, so the old cache is deleted instead of served forever', () => {
    const changed = lazy.map((e) => (e.url === 'ort/ort-wasm.wasm' ? { ...e, revision: 'o1-new' } : e));
    expect(lazyCacheName(changed)).not.toBe(lazyCacheName(lazy));
    expect(lazyCacheName(lazy.slice(1))).not.toBe(lazyCacheName(lazy));
  });
});

describe('ownAnswer (what the runtime cache keeps, issue 43)', () => {
  const origin = 'https://app.example';
  const answer = (url: string, status = 200, type: ResponseType = 'basic') => ({ url, status, type });
  it('keeps a whole answer of this origin, not one redirected elsewhere, opaque, or partial', () => {
    expect(ownAnswer(answer(`${origin}/lib.bundle`), origin)).toBe(true);
    expect(ownAnswer(answer(''), origin)).toBe(true);
    expect(ownAnswer(answer('https://stranger.example/lib.bundle', 200, 'cors'), origin)).toBe(false);
    expect(ownAnswer(answer('', 0, 'opaque'), origin)).toBe(false);
    expect(ownAnswer(answer('', 0, 'opaqueredirect'), origin)).toBe(false);
    expect(ownAnswer(answer(`${origin}/lib.bundle`, 206), origin)).toBe(false);
  });
});
