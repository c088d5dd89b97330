// Writes the frozen bundles of test/support/frozenBundles.ts with this repository's `cli index` (the arguments the
// specs used to run at test time), from the repository root:
//   node --import tsx test/support/freezeBundles.ts [name…]
// Re-run it when the bundle or pages format changes (test/unit/bundle/frozenBundles.test.ts says so), and commit
// the files. The KG bundle's extraction is the scripted LLM server's (deterministic), on loopback.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as indexCli } from '../../src/cli/index.ts';
import { FROZEN_BUNDLES, FROZEN_DIR, type FrozenBundle } from './frozenBundles.ts';
import { startScriptedLlmServer } from './scriptedLlmServer.ts';

async function freeze(name: string, bundle: FrozenBundle): Promise<void> {
  const out = join(FROZEN_DIR, name);
  const dir = bundle.text === undefined ? undefined : await mkdtemp(join(tmpdir(), 'conceptrag-freeze-'));
  const input = dir ? join(dir, bundle.input) : bundle.input;
  if (dir) await writeFile(input, bundle.text!);
  const args = [input, '--out', out, '--embedder', 'none', '--quiet', ...bundle.flags];
  const server = bundle.kg ? await startScriptedLlmServer() : undefined;
  try {
    if (server) args.push('--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model');
    const began = performance.now();
    const code = await indexCli(args);
    if (code !== 0) throw new Error(`cli index ${args.join(' ')} exited ${code}`);
    console.log(`${out}: ${((performance.now() - began) / 1000).toFixed(1)} s`);
  } finally {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
for (const [name, bundle] of Object.entries(FROZEN_BUNDLES) as [string, FrozenBundle][])
  if (wanted.length === 0 || wanted.includes(name)) await freeze(name, bundle);
