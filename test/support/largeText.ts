// The size check of prepareFile (test/unit/chunk/large*.test.ts): a generated plain-text file of `megabytes` MB must
// parse, hash and chunk within a CPU budget proportional to its size, every chunk within the token limit. The
// default tier runs it at 10 MB, the scale tier at the 50 MB the check was written for (30 s of CPU).
import { expect } from 'vitest';
import { prepareFile } from '../../src/core/prepare.ts';

/** CPU seconds allowed per MB: 30 s for 50 MB. */
const CPU_SECONDS_PER_MB = 30 / 50;

const WORDS = [
  'river',
  'barge',
  'grain',
  'harbour',
  'lock',
  'valley',
  'trade',
  'quarter',
  'Aldmoor',
  'water',
];

export async function checkLargeText(megabytes: number): Promise<void> {
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const paragraphs: string[] = [];
  let size = 0;
  const want = megabytes * 1_000_000;
  while (size < want + 10) {
    const sentences: string[] = [];
    for (let s = 0; s < 6; s++) {
      const n = 8 + (next() % 12);
      const sentence = Array.from({ length: n }, () => WORDS[next() % WORDS.length]).join(' ');
      sentences.push(`Dr. ${sentence[0].toUpperCase()}${sentence.slice(1)} ${next() % 2000}.`);
    }
    const paragraph = sentences.join(' ');
    paragraphs.push(paragraph);
    size += paragraph.length + 2;
  }
  const bytes = new TextEncoder().encode(paragraphs.join('\n\n'));
  expect(bytes.length).toBeGreaterThanOrEqual(want);

  // CPU time of this process, not wall time: the test must not fail because other suites share the 2 cores.
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { documents, errors } = await prepareFile('big.txt', bytes, { maxChunkTokens: 1200 });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const wallSeconds = (performance.now() - started) / 1000;
  console.log(
    `${megabytes} MB .txt: prepareFile took ${cpuSeconds.toFixed(1)} s CPU, ${wallSeconds.toFixed(1)} s wall`,
  );
  expect(errors).toEqual([]);
  const [prepared] = documents;
  let maxTokens = 0;
  for (const chunk of prepared.chunks) maxTokens = Math.max(maxTokens, chunk.tokens);
  expect(maxTokens).toBeLessThanOrEqual(1200);
  expect(prepared.sentences.length).toBe(paragraphs.length * 6);
  expect(cpuSeconds).toBeLessThan(megabytes * CPU_SECONDS_PER_MB);
}
