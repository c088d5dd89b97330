import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../../src/cli/kgCost.ts';
import { extractionMessages } from '../../../src/core/kg/prompt.ts';
import { estimateMessageTokens } from '../../../src/core/llm/usage.ts';
import { captureCli } from '../../support/captureCli.ts';
import { ENGINE_PASSAGES, writeEngineCorpus } from '../../support/engineCorpus.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgcost-'));
  await writeEngineCorpus(join(dir, 'corpus.jsonl'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('cli kg-cost', () => {
  it('writes calls and token counts per κ, calls = ⌈κ·chunks⌉, input = the real prompts of the selected chunks', async () => {
    const { code, out: printed } = await captureCli(() =>
      run(['--corpus', join(dir, 'corpus.jsonl'), '--kappa', '0.25,0.5,1', '--json', join(dir, 'out.json')]),
    );
    expect(code).toBe(0);
    expect(printed).toContain('| κ | calls | input tokens | output tokens (est.) |');
    const json = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8')) as Record<
      string,
      { calls: number; inputTokens: number; outputTokens: number }
    >;
    expect(Object.keys(json).sort()).toEqual(['0.25', '0.5', '1']);
    expect([json['0.25'].calls, json['0.5'].calls, json['1'].calls]).toEqual([1, 2, 4]);
    // κ = 1 sends every chunk: its input is the sum over the corpus whatever the rank order. Each passage is one
    // chunk whose text starts with the passage text (the title may be prepended by the parser).
    expect(json['1'].inputTokens).toBeGreaterThanOrEqual(
      ENGINE_PASSAGES.reduce((s, l) => s + estimateMessageTokens(extractionMessages(l.text)), 0),
    );
    expect(json['0.5'].inputTokens).toBeLessThan(json['1'].inputTokens);
    // Output is estimated per call as round(0.35 × input): within half a token per call of 0.35 × the total.
    for (const k of ['0.25', '0.5', '1']) {
      expect(Math.abs(json[k].outputTokens - 0.35 * json[k].inputTokens)).toBeLessThanOrEqual(
        json[k].calls / 2,
      );
    }
  });

  it('refuses κ outside (0, 1] and a missing corpus flag', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(run(['--corpus', 'x.jsonl', '--kappa', '0,1'])).rejects.toThrow(
      /--kappa values must be in \(0, 1\]/,
    );
    expect(await run([])).toBe(2);
    err.mockRestore();
  });
});
