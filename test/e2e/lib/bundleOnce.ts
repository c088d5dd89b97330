// A lexical bundle made by this repository's CLI once per Playwright worker, with any extra `cli index` flags
// (`--pages`, `--stream`), for a spec that opens a bundle the CLI writes at test time: library-opening's of the Vue
// docs (outside the repository, so not frozen), which keeps `cli index` → bundle → app covered live. The other bundle
// specs open frozen bundles (test/support/frozenBundles.ts). `cli index` runs in the worker's own process (its `run`, as bundle-readonly-llm
// calls it): a `node --import tsx` child per bundle cost 20–37 s of wall at load ~20, most of it starting tsx, not
// indexing. Every test gets the same bytes; copy them where the test serves them.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as indexCli } from '../../../src/cli/index.ts';

const built = new Map<string, Promise<string>>();
const folders: string[] = [];
process.on('exit', () => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/**
 * The path of `cli index <input> --embedder none --quiet <flags>`'s bundle, built on the first call in this worker
 * (with the same input and flags) and kept until the worker exits. A failed build fails every test that asks for it.
 */
export function bundleOnce(input: string, flags: readonly string[] = []): Promise<string> {
  const key = JSON.stringify([input, ...flags]);
  let bundle = built.get(key);
  if (!bundle) {
    bundle = (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'conceptrag-e2e-bundle-'));
      folders.push(dir);
      const out = join(dir, 'built.bundle');
      const code = await indexCli([input, '--out', out, '--embedder', 'none', '--quiet', ...flags]);
      if (code !== 0) throw new Error(`cli index ${input} ${flags.join(' ')} exited ${code}`);
      return out;
    })();
    built.set(key, bundle);
  }
  return bundle;
}
