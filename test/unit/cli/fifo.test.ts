// A FIFO given as the bundle (issue 43, LOW): `cli info`, `ask` (by ranges and whole) and `upgrade` opened it and
// waited for a writer forever. Only a regular file is opened as a bundle; the rest is refused by name at once.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { FileRangeSource } from '../../../src/cli/fileRangeSource.ts';
import { run as info } from '../../../src/cli/info.ts';
import { run as upgrade } from '../../../src/cli/upgrade.ts';
import { captureCli } from '../../support/captureCli.ts';

let dir = '';
let fifo = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-fifo-'));
  fifo = join(dir, 'pipe.bundle');
  execFileSync('mkfifo', [fifo]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const notRegular = /pipe\.bundle is not a regular file \(a pipe, device or folder is not read as a bundle\)/;

describe('a FIFO as the bundle', { timeout: 20_000 }, () => {
  it('is refused by cli info', async () => {
    const run = await captureCli(() => info([fifo]));
    expect(run.code).toBe(1);
    expect(run.err).toMatch(notRegular);
  });

  it('is refused by the range and whole readers (cli ask) and by cli upgrade', async () => {
    await expect(FileRangeSource.open(fifo)).rejects.toThrow(notRegular);
    await expect(readBundleFile(fifo)).rejects.toThrow(notRegular);
    await expect(captureCli(() => upgrade([fifo, '--out', join(dir, 'out.bundle')]))).rejects.toThrow(
      notRegular,
    );
  });

  it('a folder is refused the same way', async () => {
    await expect(FileRangeSource.open(dir)).rejects.toThrow(/is not a regular file/);
  });
});
