// `cli index` on the hostile folder of issue 23 (test/support/hostileFolder.ts: a link outside, a link to
// /dev/zero, a FIFO, two link loops, a socket, a link to nothing, a 30 MB file, a .docx whose XML inflates to
// 40 MB, one good file), in a process of its own: seconds to the written bundle, peak resident memory (the
// parse thread included), and the verdict printed for each entry.
//   node --import tsx test/bench/hostile-folder.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeHostileFolder } from '../support/hostileFolder.ts';
import { runMeasuredCli } from '../support/runMeasuredCli.ts';

const dir = await mkdtemp(join(tmpdir(), 'conceptrag-hostile-folder-'));
const hostile = await makeHostileFolder(dir);
try {
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const out = join(dir, 'out.bundle');
  const run = await runMeasuredCli(
    ['index', hostile.folder, '--out', out, '--embedder', 'none', '--quiet'],
    300_000,
  );
  for (const line of run.err.split('\n').filter((l) => l.startsWith('index: skipped'))) {
    console.log(line.replace(hostile.folder, '<folder>').slice(0, 160));
  }
  console.log(run.out.trim().replace(out, '<out>'));
  console.log(
    `cli index: exit ${run.code}, ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMB.toFixed(0)} MB ` +
      `(load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
  );
} finally {
  await hostile.close();
  await rm(dir, { recursive: true, force: true });
}
