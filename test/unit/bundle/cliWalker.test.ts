// `cli index` on a hostile folder (issue 23, item 2): the walker keeps regular files inside the folder under the
// page's cap, the parse thread stops a .docx whose XML inflates to 40 MB at the time limit, every entry left out is
// named with its reason, and the run ends with a bundle of the good file only. Before, a link to a file outside was
// indexed, the FIFO hung the run, /dev/zero grew to gigabytes and one loop ended the run. The limit is the user's
// --parse-timeout, lowered from the browser's 30 s: the same refusal, sooner (the bomb parsed to 30 s was most of the
// unit tier's slowest CLI file).
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

/**
 * The parse limit the test gives: far below the browser's 30 s, which the bomb would take to be stopped, and above
 * what the good file needs on a busy machine: in the CLI the limit counts its fresh parse thread's start too (8 s
 * passed at load 21; 10 s left for a busier one).
 */
const PARSE_TIMEOUT_S = 10;

describe('cli index on the hostile folder', () => {
  it('writes a bundle of the good file only and names each other entry', async () => {
    const out = join(dir, 'hostile.bundle');
    const { code, err } = await captureCli(() =>
      index([
        ...[hostile.folder, '--out', out, '--embedder', 'none', '--quiet'],
        ...['--parse-timeout', String(PARSE_TIMEOUT_S)],
      ]),
    );
    expect(code, err).toBe(0);
    for (const bad of hostile.bad) {
      const line = err.split('\n').find((l) => l.startsWith(`index: skipped ${bad.path}: `));
      expect(line, `${bad.path} in:\n${err}`).toMatch(bad.reason);
    }
    // Stopped at the limit given, or sooner by the thread's memory limit; never parsed whole.
    const bomb = err.split('\n').find((l) => l.startsWith('index: skipped bomb.docx: '));
    expect(bomb).toMatch(new RegExp(`over ${PARSE_TIMEOUT_S} s|more than \\d+ MB of memory`));
    const back = await readBundleFile(out);
    expect(back.documents.map((d) => d.sourceName)).toEqual(['good.md']);
    expect(back.documents[0].text).toContain('The grey heron waits by the river.');
    expect(back.documents.some((d) => d.text.includes('ZEBRA-LANTERN-42'))).toBe(false);
  }, 180_000);

  it('refuses a --parse-timeout that is not a number of seconds above 0, naming the flag', async () => {
    for (const bad of ['0', '-5', 'soon', '1e12']) {
      const { code, err } = await captureCli(() =>
        index([hostile.good, '--out', join(dir, 'never.bundle'), `--parse-timeout=${bad}`]),
      );
      expect(code, bad).toBe(2);
      expect(err, bad).toContain(
        `index: --parse-timeout wants seconds above 0 (at most 2147483), got "${bad}"`,
      );
    }
  });
});
