// `cli ask --whole` asks every question of a --questions file of one read bundle: the bundle's KG index is built once
// for them all, not at each question (it took 2.6 s a question for MuSiQue's KG, kg-pages.md).
import { describe, expect, it, vi } from 'vitest';
import { askSnapshot } from '../../../src/cli/ask.ts';
import { DOCS, snapshotOf } from '../bundle/fixtures.ts';

const built = vi.hoisted(() => ({ kg: 0 }));

vi.mock('../../../src/services/library/readOnlyBundle.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/services/library/readOnlyBundle.ts')>();
  return {
    ...real,
    bundleKgIndex: (tables: Record<string, unknown[]>) => {
      built.kg++;
      return real.bundleKgIndex(tables);
    },
  };
});

describe('cli ask over a bundle read whole', () => {
  it('builds the KG index once for many kg questions of one bundle, and again for another bundle', async () => {
    const snapshot = snapshotOf();
    for (const question of ['Tell me about Lothair II', 'Lothair II', 'What did Lothair II do?']) {
      const { output } = await askSnapshot(snapshot, question, { mode: 'kg', budget: 1000 });
      expect(output.context.map((c) => c.chunkId)).toContain(`${DOCS[0].id}#0000#0000`);
    }
    expect(built.kg).toBe(1);
    await askSnapshot(snapshotOf(), 'Lothair II', { mode: 'hybrid', budget: 1000 });
    expect(built.kg).toBe(2);
  });
});
