// Where the first KG question's read of a bundle's KG goes (src/core/paged/layerTables.ts, then bundleKgIndex): per
// KG part, the read, the SHA-256, the gunzip, the JSON alone, the JSON with the table checks (what the loader runs),
// then the index, with the load average.
// Usage: node --import tsx test/bench/kg-read-steps.ts <pages+kg.bundle>
import { loadavg } from 'node:os';
import process from 'node:process';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { decodeStructured, decodeTablePart, gunzip, Sha256 } from '../../src/core/bundle/index.ts';
import { readManifestByRanges } from '../../src/core/paged/index.ts';
import { bundleKgIndex } from '../../src/services/library/readOnlyBundle.ts';

if (process.argv.length !== 3) {
  process.stderr.write('usage: node --import tsx test/bench/kg-read-steps.ts <pages+kg.bundle>\n');
  process.exit(2);
}
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const source = await FileRangeSource.open(process.argv[2]);
try {
  const manifest = await readManifestByRanges(source);
  if (!manifest) throw new Error(`${source.name} cannot be read by ranges`);
  const tables: Record<string, unknown[]> = {};
  for (const name of ['kgEntities', 'kgRelations']) {
    const entry = manifest.parts.find((p) => p.name === `table.${name}.bin`);
    if (!entry) throw new Error(`${source.name} holds no ${name}`);
    const steps: Array<[string, number]> = [];
    let t = performance.now();
    const lap = (step: string) => {
      steps.push([step, performance.now() - t]);
      t = performance.now();
    };
    const stored = await source.read(entry.offset!, entry.length);
    lap('read');
    new Sha256().update(stored).digest();
    lap('sha256');
    const raw = await gunzip(stored, entry.rawLength);
    lap('gunzip');
    decodeStructured(raw, entry.name);
    lap('json');
    // What the loader runs: the JSON again, with the whole read's table checks.
    tables[name] = decodeTablePart(name, entry, raw, manifest.embedder);
    lap('json and checks');
    process.stdout.write(
      `${entry.name}: ${(entry.length / 1e6).toFixed(2)} MB stored, ${(entry.rawLength / 1e6).toFixed(1)} MB inflated; ` +
        `${steps.map(([s, ms]) => `${s} ${ms.toFixed(0)} ms`).join(', ')}; load ${load()}\n`,
    );
  }
  const t = performance.now();
  const index = bundleKgIndex(tables);
  process.stdout.write(
    `index: ${index.size} entities in ${(performance.now() - t).toFixed(0)} ms; load ${load()}\n`,
  );
} finally {
  await source.close();
}
