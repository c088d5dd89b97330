// `bench --per-question out.jsonl`: one line per question, mode and grid combination, so a setting's gain or loss on a
// set can be traced to its questions (issue 45: which question a ranking change moves). The lines must agree with the
// run's own means.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/bench.ts';
import { captureCli } from '../../support/captureCli.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/2wiki-comparison-20');
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-per-question-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Line {
  params: Record<string, number>;
  mode: string;
  id: string;
  cr: number[];
  recall: number[] | null;
}

describe('bench --per-question', () => {
  it('writes each question’s scores per mode and grid value, and they average to the summary', async () => {
    const lines = join(dir, 'pq.jsonl');
    const summary = join(dir, 'summary.json');
    const { code, err } = await captureCli(() =>
      run([
        ...['--corpus', join(FIXTURE, 'corpus.jsonl'), '--questions', join(FIXTURE, 'questions.jsonl')],
        ...['--embedder', 'none', '--modes', 'bm25', '--budgets', '1000', '--limit', '6'],
        ...['--grid', 'bridgeSlots=0,1', '--per-question', lines, '--json', summary],
      ]),
    );
    expect(code, err).toBe(0);
    const rows = (await readFile(lines, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    // 6 questions × 1 mode × 2 grid values.
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.params.bridgeSlots))).toEqual(new Set([0, 1]));
    const grid = (
      JSON.parse(await readFile(summary, 'utf8')) as {
        grid: Array<{ params: { bridgeSlots: number }; modes: { bm25: { cr: Record<string, number> } } }>;
      }
    ).grid;
    for (const g of grid) {
      const mine = rows.filter((r) => r.params.bridgeSlots === g.params.bridgeSlots && r.mode === 'bm25');
      expect(mine).toHaveLength(6);
      const mean = mine.reduce((s, r) => s + r.cr[0], 0) / mine.length;
      expect(mean).toBeCloseTo(g.modes.bm25.cr['1000'], 3);
    }
  });
});
