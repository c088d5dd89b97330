// `cli info <bundle> --concepts N [--json]`: the library's top concepts by PageRank with their chunk counts,
// and the argument refused before the bundle is read.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as index } from '../../../src/cli/index.ts';
import { run as info } from '../../../src/cli/info.ts';
import { captureCli } from '../../support/captureCli.ts';

const dir = await mkdtemp(join(tmpdir(), 'info-concepts-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const PAGES: Record<string, string> = {
  'watchers.md': `# Watchers\n\n## Eager Watchers\n\nA watcher is lazy by default. Pass immediate: true to run the watcher callback at once. The watcher callback then runs once.\n\n## Flush Timing\n\nWatcher callbacks run before the DOM update. Use watchPostEffect to read the updated DOM in a watcher callback.\n`,
  'props.md': `# Props\n\n## Declaring Props\n\nA component declares its props with defineProps. Props flow down from the parent component.\n\n## Prop Validation\n\nEach prop can name its type; a prop that fails validation logs a warning in development.\n`,
  'slots.md': `# Slots\n\n## Slot Content\n\nA component passes template content to a child component through slots. Named slots and scoped slots pass props back to the parent.\n`,
};

describe('cli info --concepts', () => {
  it('prints the top concepts with the chunks each was kept for, and none is a generic word', async () => {
    const docs = join(dir, 'docs');
    await mkdir(docs);
    for (const [name, text] of Object.entries(PAGES)) await writeFile(join(docs, name), text);
    const bundle = join(dir, 'x.bundle');
    const built = await captureCli(() => index([docs, '--out', bundle, '--embedder', 'none']));
    expect(built.code, built.err).toBe(0);
    const listed = await captureCli(() => info([bundle, '--concepts', '8', '--json']));
    expect(listed.code, listed.err).toBe(0);
    const top = JSON.parse(listed.out) as Array<{ term: string; chunks: number }>;
    expect(top).toHaveLength(8);
    for (const c of top) {
      expect(typeof c.term).toBe('string');
      expect(c.chunks).toBeGreaterThanOrEqual(1);
    }
    // The subjects of these pages, and none of the words every page says.
    const terms = top.map((c) => c.term);
    expect(
      terms.some((t) => ['watcher', 'props', 'slots', 'component', 'watcher callback'].includes(t)),
    ).toBe(true);
    for (const generic of ['the', 'once', 'back', 'run', 'read']) expect(terms).not.toContain(generic);
    const plain = await captureCli(() => info([bundle, '--concepts', '3']));
    expect(plain.out.trim().split('\n')).toHaveLength(3);
  });

  it('refuses a count that is not a whole number before reading the bundle', async () => {
    const r = await captureCli(() => info([join(dir, 'missing.bundle'), '--concepts', 'ten']));
    expect(r.code).toBe(2);
    expect(r.err).toContain('--concepts must be a whole number');
  });
});
