// Spec (b): bad input in one batch — an empty file, a corrupt PDF, a binary file named .txt, a 50 MB text file
// generated here, and an unsupported extension — each gets a per-file outcome naming the file (indexed, or failed
// with a reason), and the good file of the same batch is indexed completely. Its sentences are embedded through
// the scripted endpoint on loopback (an endpoint embedder, as set in Settings): every layer is checked, without
// loading the USE model for one small file.
import { copyFile, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, checkIntegrity, readCounts, readOutcomes, waitIdle } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'docs');

/** Writes a text file of `bytes` bytes made of ordinary sentences. */
async function writeBigText(path: string, bytes: number): Promise<void> {
  const line = 'The quick brown fox jumps over the lazy dog near the old river bank today. ';
  const block = line.repeat(Math.ceil((1024 * 1024) / line.length)).slice(0, 1024 * 1024);
  const file = await open(path, 'w');
  try {
    for (let written = 0; written < bytes; written += block.length) await file.write(block);
  } finally {
    await file.close();
  }
}

test.setTimeout(180_000);

test('bad input: empty, corrupt pdf, binary .txt, 50 MB text, unsupported extension → per-file outcome; rest indexed', async ({
  page,
  tmp,
  log,
  appWithEmbedder: _embedder,
}) => {
  const big = join(tmp, 'big-50mb.txt');
  await writeBigText(big, 50 * 1024 * 1024);
  const unsupported = join(tmp, 'archive.xyz');
  await writeFile(unsupported, 'some text in a file type the app does not read');
  const good = join(tmp, 'hello.txt');
  await copyFile(join(FIXTURES, 'hello.txt'), good);
  const files = [
    join(FIXTURES, 'empty.txt'),
    join(FIXTURES, 'corrupt.pdf'),
    join(FIXTURES, 'binary.txt'),
    big,
    unsupported,
    good,
  ];
  const names = ['empty.txt', 'corrupt.pdf', 'binary.txt', 'big-50mb.txt', 'archive.xyz', 'hello.txt'];

  await addFiles(page, files);
  await waitIdle(page);
  const outcomes = await readOutcomes(page);
  log(outcomes.map((o) => `${o.file}: ${o.status} — ${o.text}`).join('\n      '));
  for (const name of names) {
    const o = outcomes.find((x) => x.file === name);
    expect(o, `${name}: no outcome shown in the Library view`).toBeDefined();
    if (o?.status === 'failed') expect(o.text, `${name}: failed without a reason`).toMatch(/failed: \S/);
    expect(o?.text, `${name}: the outcome does not name the file`).toContain(name);
  }
  const status = (name: string) => outcomes.find((x) => x.file === name)?.status;
  for (const name of ['empty.txt', 'corrupt.pdf', 'binary.txt', 'archive.xyz']) {
    expect(status(name), `${name}: expected a per-file error, got ${status(name)}`).toBe('failed');
  }
  expect(status('hello.txt'), `hello.txt: expected indexed, got ${status('hello.txt')}`).toBe('indexed');
  const bigOutcome = outcomes.find((x) => x.file === 'big-50mb.txt');
  if (bigOutcome?.status === 'failed') {
    expect(bigOutcome.text, `big-50mb.txt: unexpected reason: ${bigOutcome.text}`).toMatch(/too large/);
  }
  const counts = await readCounts(page);
  expect(counts.documents, 'the good file of the batch was not stored').toBeGreaterThanOrEqual(1);
  const integrity = await checkIntegrity(page);
  expect(integrity.problems, 'integrity').toEqual([]);
});
