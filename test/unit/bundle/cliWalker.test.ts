// `cli index` on a hostile folder (issue 23, item 2): the walker keeps regular files inside the folder under the
// page's cap, the parse thread stops a .docx whose XML inflates to 40 MB at the browser's time limit, every entry
// left out is named with its reason, and the run ends with a bundle of the good file only. Before, a link to a
// file outside was indexed, the FIFO hung the run, /dev/zero grew to gigabytes and one loop ended the run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { walkInputs } from '../../../src/cli/fileWalker.ts';
import { run as index } from '../../../src/cli/index.ts';
import { captureCli } from '../../support/captureCli.ts';
import { GOOD_TEXT, makeHostileFolder, type HostileFolder } from '../../support/hostileFolder.ts';

let dir = '';
let hostile: HostileFolder;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-walker-'));
  hostile = await makeHostileFolder(dir);
});
afterAll(async () => {
  await hostile?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the CLI file walker', () => {
  it('keeps the good file and the .docx, and names every other entry with its reason', async () => {
    const { files, skipped } = await walkInputs([hostile.folder]);
    expect(files).toEqual([join(hostile.folder, 'bomb.docx'), hostile.good]);
    for (const bad of hostile.bad.filter((b) => b.path !== 'bomb.docx')) {
      const verdict = skipped.find((s) => s.file === bad.path);
      expect(verdict?.reason, bad.path).toMatch(bad.reason);
    }
    expect(skipped).toHaveLength(hostile.bad.length - 1);
  });

  it('follows a link to inside once and reads a file reached twice once', async () => {
    const { symlink, mkdir, writeFile } = await import('node:fs/promises');
    const root = join(dir, 'links');
    await mkdir(join(root, 'a'), { recursive: true });
    await writeFile(join(root, 'a', 'note.md'), GOOD_TEXT);
    await symlink('a', join(root, 'b')); // a second name for the folder a
    await symlink(join(root, 'a', 'note.md'), join(root, 'same.md'));
    const { files, skipped } = await walkInputs([root]);
    expect(files).toEqual([join(root, 'a', 'note.md')]);
    expect(skipped).toEqual([
      {
        file: join(root, 'b'),
        reason: `a link to the folder ${join(root, 'a')}, which is walked already (a loop); not followed again`,
      },
      { file: join(root, 'same.md'), reason: `the same file as ${join(root, 'a', 'note.md')}; read once` },
    ]);
  });

  it('names a path given on the command line that does not exist, without ending the walk', async () => {
    const { files, skipped } = await walkInputs([join(dir, 'nope'), hostile.good]);
    expect(files).toEqual([hostile.good]);
    expect(skipped).toEqual([
      { file: join(dir, 'nope'), reason: 'does not exist (or is a symbolic link to nothing)' },
    ]);
  });
});

describe('cli index on the hostile folder', () => {
  it('writes a bundle of the good file only and names each other entry', async () => {
    const out = join(dir, 'hostile.bundle');
    const { code, err } = await captureCli(() =>
      index([hostile.folder, '--out', out, '--embedder', 'none', '--quiet']),
    );
    expect(code, err).toBe(0);
    for (const bad of hostile.bad) {
      const line = err.split('\n').find((l) => l.startsWith(`index: skipped ${bad.path}: `));
      expect(line, `${bad.path} in:\n${err}`).toMatch(bad.reason);
    }
    const back = await readBundleFile(out);
    expect(back.documents.map((d) => d.sourceName)).toEqual(['good.md']);
    expect(back.documents[0].text).toContain('The grey heron waits by the river.');
    expect(back.documents.some((d) => d.text.includes('ZEBRA-LANTERN-42'))).toBe(false);
  }, 180_000);
});
