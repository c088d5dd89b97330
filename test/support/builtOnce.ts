// Builds that several test files make from the same frozen fixtures (a parsed corpus, a reference bundle), made once
// and kept under .cache/test-builds/ for the files after: real builds by the code under test, only not repeated. An
// entry is keyed by everything its bytes follow from — the build's name and options, the bytes of every input file,
// and the code that builds (src/, test/support/, the lockfile, Node's version) — so a change to any of them builds
// again, and the entries of a stale key are removed then. A build under test is never taken from here: only what a
// test compares against or reads.
import { createHash, type Hash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { prepareCorpus, type PreparedCorpus } from '../../src/cli/benchData.ts';

const ROOT = join(import.meta.dirname, '../..');
const CACHE = join(ROOT, '.cache/test-builds');

/** Every file under `path` (or `path` itself), by its path from the repository root and its bytes, in name order. */
function hashTree(hash: Hash, path: string): void {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) hashTree(hash, join(path, name));
    return;
  }
  hash.update(`${relative(ROOT, path)}\0`);
  hash.update(readFileSync(path));
  hash.update('\0');
}

let codeKey: string | undefined;

/** The code a build runs, hashed once a process: a change anywhere in it makes every entry stale. */
function codeVersion(): string {
  if (codeKey === undefined) {
    const hash = createHash('sha256').update(process.version);
    for (const part of ['src', 'test/support', 'package-lock.json']) hashTree(hash, join(ROOT, part));
    codeKey = hash.digest('hex');
  }
  return codeKey;
}

/**
 * `build()`'s result for these inputs: read back from the cache when the same build of the same bytes by the same code
 * was made before (by this file or another), else built and kept. The value goes through v8's serializer (typed
 * arrays, maps and undefined kept; class instances come back as plain objects, so keep data, not engines).
 */
export async function builtOnce<T>(
  name: string,
  inputs: { paths: readonly string[]; options?: unknown },
  build: () => Promise<T>,
): Promise<T> {
  const hash = createHash('sha256').update(
    `${codeVersion()}\0${name}\0${JSON.stringify(inputs.options ?? null)}`,
  );
  for (const path of inputs.paths) hashTree(hash, path);
  const file = join(CACHE, `${name}-${hash.digest('hex').slice(0, 24)}.v8`);
  try {
    return deserialize(readFileSync(file)) as T;
  } catch {
    // Not built yet with this key (or unreadable, e.g. written by another Node version): built below.
  }
  const value = await build();
  mkdirSync(CACHE, { recursive: true });
  const sameName = /^(.+)-[0-9a-f]{24}\.v8$/;
  for (const stale of readdirSync(CACHE).filter((f) => sameName.exec(f)?.[1] === name))
    rmSync(join(CACHE, stale), { force: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, serialize(value));
  renameSync(partial, file);
  return value;
}

/**
 * prepareCorpus's parse (the app's parsers, in the CLI's parse thread) of a fixture, made once: several files build
 * their libraries from the same frozen corpora. A path outside the repository (a temporary folder, ../shared) is
 * parsed each time: its bytes are not the fixtures'.
 */
export function preparedCorpus(path: string, maxChunkTokens: number): Promise<PreparedCorpus> {
  const from = relative(ROOT, resolve(path));
  if (from.startsWith('..') || isAbsolute(from)) return prepareCorpus(path, maxChunkTokens);
  return builtOnce(
    `corpus.${from.replaceAll('/', '_')}`,
    { paths: [path], options: { maxChunkTokens } },
    () => prepareCorpus(path, maxChunkTokens),
  );
}

/**
 * A file `build()` writes at `out` (a bundle the CLI builds), made once: on a later call its bytes are written at
 * `out` from the cache.
 */
export async function builtFile(
  name: string,
  inputs: { paths: readonly string[]; options?: unknown },
  out: string,
  build: () => Promise<unknown>,
): Promise<string> {
  const bytes = await builtOnce(name, inputs, async () => {
    await build();
    return new Uint8Array(readFileSync(out));
  });
  writeFileSync(out, bytes);
  return out;
}
