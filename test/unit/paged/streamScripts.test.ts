// Word statistics per script (scriptStatistics) in `cli index --stream`: a library of Chinese and English documents
// streamed writes the in-memory build's version 13 pages byte for byte (the stream build counts each chunk's words by
// script in its second pass and chooses the concepts after it, where it chose them chunk by chunk), and answers by
// ranges as the engine in memory does. A small fixture of this file's own: 30 English notes and 30 Chinese ones
// (each script the main one of at least MIN_SCRIPT_CHUNKS chunks; every Chinese note holds its number, an "other"
// word).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attachGraph, collectFiles, snapshotFromFiles } from '../../../src/cli/index.ts';
import { streamBuild } from '../../../src/cli/streamIndex.ts';
import type { PagesDirectory } from '../../../src/core/paged/format.ts';
import { openPagedBundle } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { retrievalInput, termAnalyzer } from '../../../src/services/library/engine.ts';
import { snapshotToCorpus } from '../../../src/store/bundleImport.ts';
import {
  chineseWords,
  ENGLISH_WITH_CANAL,
  englishWords,
  MIXED_QUESTIONS,
} from '../../support/mixedScripts.ts';
import { partOf } from '../../support/bundleParts.ts';

const work = mkdtempSync(join(tmpdir(), 'stream-scripts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The fixture's folder: each note's words picked in a fixed pattern, so their frequencies differ. */
function mixedFolder(): string {
  const folder = join(work, 'mixed');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < 30; i++) {
    const w = englishWords(i, ENGLISH_WITH_CANAL);
    writeFileSync(
      join(folder, `en-${String(i).padStart(2, '0')}.md`),
      `# The ${w[0]} of ${w[1]}\n\nThe ${w[0]} of ${w[1]} stands by the ${w[2]}. A ${w[3]} was built near the ${w[4]} in ${1700 + i}.\n`,
    );
  }
  for (let i = 0; i < 30; i++) {
    const w = chineseWords(i);
    writeFileSync(
      join(folder, `zh-${String(i).padStart(2, '0')}.md`),
      `# ${w[0]}与${w[1]}\n\n第${i + 1}节：${w[0]}通过${w[1]}接收${w[2]}，并在${w[3]}变化时重新${w[4]}。\n`,
    );
  }
  return folder;
}

const QUESTIONS = MIXED_QUESTIONS;

describe('cli index --stream with word statistics per script', () => {
  it('writes the in-memory build’s version 17 pages byte for byte, and answers as the engine in memory', async () => {
    const folder = mixedFolder();
    const params = { scriptStatistics: true };
    const files = await collectFiles([folder]);
    const { snapshot } = await snapshotFromFiles(files, { embedder: null, maxChunkTokens: 1200 });
    const { pages } = await attachGraph(snapshot, true, undefined, undefined, undefined, params);
    const [data, hashes] = pages!;
    const out = join(work, 'mixed.bundle');
    await streamBuild(files, out, { maxChunkTokens: 1200, appVersion: 'test', tempDir: work, params });
    const bundle = new Uint8Array(readFileSync(out));

    const streamed = partOf(bundle, 'pages.bin');
    const directory = streamed.meta as PagesDirectory;
    expect(directory.version).toBe(17);
    expect(directory.scriptChunks).toEqual({ other: 60, cjk: 30 });
    expect(streamed.meta).toEqual(data.meta);
    expect(Buffer.from(streamed.bytes).equals(Buffer.from(data.data))).toBe(true);
    expect(Buffer.from(partOf(bundle, 'pages.sha256').bytes).equals(Buffer.from(hashes.data))).toBe(true);

    const engine = RetrievalEngine.build(retrievalInput(snapshotToCorpus(snapshot)), termAnalyzer(), params);
    const opened = await openPagedBundle(new MemoryRangeSource(bundle, 'mixed.bundle'), termAnalyzer());
    for (const q of QUESTIONS)
      for (const mode of ['ppr', 'bm25', 'rrf:ppr+bm25'] as const)
        expect((await opened!.library.search(q, mode, 2000)).hits).toEqual(
          engine.search({ text: q }, mode, 2000),
        );
  }, 120_000);

  it('writes no scriptChunks without the parameter (one N, as before), the counts at the defaults', async () => {
    const files = await collectFiles([mixedFolder()]);
    const out = join(work, 'mixed-one-n.bundle');
    await streamBuild(files, out, {
      maxChunkTokens: 1200,
      appVersion: 'test',
      tempDir: work,
      params: { scriptStatistics: false },
    });
    const directory = partOf(new Uint8Array(readFileSync(out)), 'pages.bin').meta as PagesDirectory;
    // Version 14 either way (openCoding from 11); only the per-script library carries the counts.
    expect(directory.version).toBe(17);
    expect(directory.scriptChunks).toBeUndefined();
    // At the defaults (`cli index --stream` as a user runs it): per script.
    const byDefault = join(work, 'mixed-default.bundle');
    await streamBuild(files, byDefault, { maxChunkTokens: 1200, appVersion: 'test', tempDir: work });
    const d = partOf(new Uint8Array(readFileSync(byDefault)), 'pages.bin').meta as PagesDirectory;
    expect([d.version, d.scriptChunks]).toEqual([17, { other: 60, cjk: 30 }]);
  }, 120_000);
});
