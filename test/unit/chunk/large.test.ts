import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../src/core/prepare.ts';

// One end-to-end size check: a 50 MB plain-text file must parse, hash and chunk in well under 30 s.
describe('prepareFile on 50 MB', () => {
  it('parses and chunks a generated 50 MB .txt in under 30 s of CPU with every chunk within the limit', async () => {
    const words = [
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
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const paragraphs: string[] = [];
    let size = 0;
    while (size < 50_000_010) {
      const sentences: string[] = [];
      for (let s = 0; s < 6; s++) {
        const n = 8 + (next() % 12);
        const sentence = Array.from({ length: n }, () => words[next() % words.length]).join(' ');
        sentences.push(`Dr. ${sentence[0].toUpperCase()}${sentence.slice(1)} ${next() % 2000}.`);
      }
      const paragraph = sentences.join(' ');
      paragraphs.push(paragraph);
      size += paragraph.length + 2;
    }
    const bytes = new TextEncoder().encode(paragraphs.join('\n\n'));
    expect(bytes.length).toBeGreaterThanOrEqual(50_000_000);

    // CPU time of this process, not wall time: the test must not fail because other suites share the 2 cores.
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const { documents, errors } = await prepareFile('big.txt', bytes, { maxChunkTokens: 1200 });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const wallSeconds = (performance.now() - started) / 1000;
    console.log(
      `50 MB .txt: prepareFile took ${cpuSeconds.toFixed(1)} s CPU, ${wallSeconds.toFixed(1)} s wall`,
    );
    expect(errors).toEqual([]);
    const [prepared] = documents;
    let maxTokens = 0;
    for (const chunk of prepared.chunks) maxTokens = Math.max(maxTokens, chunk.tokens);
    expect(maxTokens).toBeLessThanOrEqual(1200);
    expect(prepared.sentences.length).toBe(paragraphs.length * 6);
    expect(cpuSeconds).toBeLessThan(30);
  }, 120_000);
});
