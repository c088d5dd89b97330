// Bytes of extracted text per byte of file, by format, as the app's own parsers give them (prepareFile, the path
// every dropped file takes). The drop's memory and storage estimates (src/ui/estimates/memoryEstimate.ts,
// storageEstimate.ts) turn file sizes into text with such ratios before anything is read.
// Usage: node --import tsx test/bench/text-per-byte.ts <file or folder>...
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import process from 'node:process';
import { isSupportedFile } from '../../src/core/parse/formats.ts';
import { prepareFile } from '../../src/core/prepare.ts';

async function walk(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true }))
    out.push(...(await walk(join(path, entry.name))));
  return out;
}

const inputs = process.argv.slice(2);
if (inputs.length === 0) {
  console.error('usage: node --import tsx test/bench/text-per-byte.ts <file or folder>...');
  process.exit(1);
}
const byFormat = new Map<string, { files: number; fileBytes: number; textBytes: number; max: number }>();
const encoder = new TextEncoder();
for (const input of inputs) {
  for (const file of await walk(input)) {
    if (!isSupportedFile(file)) continue;
    const bytes = new Uint8Array(await readFile(file));
    const { documents } = await prepareFile(file, bytes);
    const text = documents.reduce((n, d) => n + encoder.encode(d.doc.text).byteLength, 0);
    const format = extname(file).toLowerCase() || '(none)';
    const row = byFormat.get(format) ?? { files: 0, fileBytes: 0, textBytes: 0, max: 0 };
    row.files += 1;
    row.fileBytes += bytes.byteLength;
    row.textBytes += text;
    if (bytes.byteLength > 0) row.max = Math.max(row.max, text / bytes.byteLength);
    byFormat.set(format, row);
  }
}
console.log('| format | files | file MB | text MB | text per file byte (all) | highest file |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [format, r] of [...byFormat].sort()) {
  console.log(
    `| ${format} | ${r.files} | ${(r.fileBytes / 2 ** 20).toFixed(2)} | ${(r.textBytes / 2 ** 20).toFixed(2)} | ` +
      `${(r.textBytes / r.fileBytes).toFixed(3)} | ${r.max.toFixed(3)} |`,
  );
}
