// End-to-end runner (`npm run test:e2e`, after `npm run build`): serves dist/ with COOP/COEP on a free loopback
// port, runs every spec in test/e2e/specs/*.spec.ts in a fresh headless Chromium profile, fails a spec that
// throws, times out, or lets any request leave the app's origin, and ends with "N passed, M failed".
// Optional arguments select specs whose name or file contains them: `node --import tsx test/e2e/run.ts ask`.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openHarness, type E2eSpec } from './lib/harness.ts';
import { serveStatic } from './lib/staticServer.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
// E2E_DIST serves another build (e.g. one made with a different base or config); default dist/.
const dist = process.env.E2E_DIST ?? join(root, 'dist');

async function loadSpecs(filters: string[]): Promise<{ file: string; spec: E2eSpec }[]> {
  const dir = join(here, 'specs');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.spec.ts')).sort();
  const out: { file: string; spec: E2eSpec }[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: E2eSpec };
    if (!mod.default || typeof mod.default.run !== 'function') {
      throw new Error(`e2e: ${file} must export default { name, run(harness) }`);
    }
    if (filters.length === 0 || filters.some((f) => file.includes(f) || mod.default!.name.includes(f))) {
      out.push({ file, spec: mod.default });
    }
  }
  return out;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  if (!existsSync(join(dist, 'index.html'))) {
    console.error('e2e: dist/index.html is missing; run `npm run build` first (npm run test:e2e does)');
    return 1;
  }
  const browser = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(browser)) {
    console.error(
      `e2e: no Chromium at ${browser}; install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
    );
    return 1;
  }
  const specs = await loadSpecs(process.argv.slice(2));
  const server = await serveStatic(dist);
  console.log(`e2e: serving dist/ at ${server.origin}; ${specs.length} spec(s)`);
  let passed = 0;
  let failed = 0;
  const started = Date.now();
  try {
    for (const { file, spec } of specs) {
      const t0 = Date.now();
      const { harness, close } = await openHarness(server.origin, dist, spec.name);
      let error: unknown = null;
      try {
        await withTimeout(spec.run(harness), spec.timeoutMs ?? 120_000, spec.name);
        if (harness.foreignRequests.length > 0) {
          throw new Error(
            `requests left the app's origin: ${[...new Set(harness.foreignRequests)].join(', ')}`,
          );
        }
      } catch (e) {
        error = e;
        const shot = join(tmpdir(), `conceptrag-e2e-failure-${file.replace(/\.spec\.ts$/, '')}.png`);
        await harness.page.screenshot({ path: shot }).then(
          () => console.log(`    screenshot: ${shot}`),
          () => undefined,
        );
      } finally {
        await close();
      }
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      if (error === null) {
        passed += 1;
        console.log(`PASS ${spec.name} (${seconds} s)`);
      } else {
        failed += 1;
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        console.log(
          `FAIL ${spec.name} (${seconds} s)\n    ${message.split('\n').slice(0, 6).join('\n    ')}`,
        );
      }
    }
  } finally {
    await server.close();
  }
  console.log(`e2e: ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
