// `kg-cost --atomize --one-pass`: the KG alone, atomic questions alone, both as two passes and as one pass, per κ,
// from the real prompts and no endpoint. One pass makes the KG's calls and sends each chunk once.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/kgCost.ts';
import { atomizeMessages, onePassMessages } from '../../../src/core/atomic/prompt.ts';
import { extractionMessages } from '../../../src/core/kg/index.ts';
import { estimateMessageTokens } from '../../../src/core/llm/index.ts';
import { countTokens } from '../../../src/core/text/index.ts';
import { captureCli } from '../../support/captureCli.ts';
import { writeEngineCorpus } from '../../support/engineCorpus.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgcost-atomic-'));
  await writeEngineCorpus(join(dir, 'corpus.jsonl'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function kgCost(args: string[]): Promise<{ code: number; printed: string }> {
  const { code, out } = await captureCli(() => run(['--corpus', join(dir, 'corpus.jsonl'), ...args]));
  return { code, printed: out };
}

type Row = { calls: number; inputTokens: number; outputTokens: number };

describe('cli kg-cost --atomize --one-pass', () => {
  it('reports separate passes and one pass; one pass sends each chunk once, with the questions field added', async () => {
    const { code, printed } = await kgCost([
      '--kappa',
      '1',
      '--atomize',
      '--one-pass',
      '--json',
      join(dir, 'a.json'),
    ]);
    expect(code).toBe(0);
    expect(printed).toContain('| 1 | KG + atomic, one pass | 4 |');
    const json = JSON.parse(await readFile(join(dir, 'a.json'), 'utf8')) as Record<
      string,
      Record<string, Row>
    >;
    const { kg, atomic, separate, onePass } = json['1'];
    expect([kg.calls, atomic.calls, separate.calls, onePass.calls]).toEqual([4, 4, 8, 4]);
    expect(separate.inputTokens).toBe(kg.inputTokens + atomic.inputTokens);
    // Per chunk, one pass sends the KG prompt plus the questions paragraph: the KG's input plus that paragraph's
    // tokens, four times; two passes send the chunk text and a whole second prompt again.
    const frame = (m: { content: string }[]) => estimateMessageTokens(m) - countTokens('');
    const added = frame(onePassMessages('', 12)) - frame(extractionMessages(''));
    expect(onePass.inputTokens).toBe(kg.inputTokens + 4 * added);
    expect(atomic.inputTokens).toBeGreaterThan(4 * frame(atomizeMessages('', 12)));
    expect(onePass.inputTokens).toBeLessThan(separate.inputTokens);
    expect(printed).toMatch(/κ 1: one pass sends \d+\.\d% fewer input tokens/);
  });

  it('refuses --one-pass without --atomize', async () => {
    expect((await kgCost(['--one-pass'])).code).toBe(2);
  });
});
