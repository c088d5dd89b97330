// Compares the parser's output over folders of documents with a saved earlier run, so a parser change can be
// checked against real corpora (the retrieval benchmarks' Markdown and AsciiDoc folders) before it lands.
//   node --import tsx test/bench/parse-compare.ts dump <out.json> <folder>...      save today's output
//   node --import tsx test/bench/parse-compare.ts compare <old.json> <folder>...   report what changed and how
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseFile } from '../../src/core/parse/index.ts';

interface Snapshot {
  title: string;
  headings: string[];
  text: string;
}

function files(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

async function snapshot(folders: string[]): Promise<Record<string, Snapshot | string>> {
  const out: Record<string, Snapshot | string> = {};
  for (const folder of folders) {
    for (const path of files(folder)) {
      const key = relative(process.cwd(), path);
      try {
        const { documents } = await parseFile(path, readFileSync(path));
        const d = documents[0];
        out[key] = {
          title: d.title,
          headings: d.sections.map((s) => `${'#'.repeat(s.level)} ${s.heading}`),
          text: d.text,
        };
      } catch (error) {
        out[key] = `error: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  }
  return out;
}

/** The first place two texts differ, with some context on both sides. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `at ${i}: ${JSON.stringify(a.slice(from, i + 60))}\n        → ${JSON.stringify(b.slice(from, i + 60))}`;
}

async function main(): Promise<void> {
  const [mode, file, ...folders] = process.argv.slice(2);
  if (!mode || !file || folders.length === 0) throw new Error('usage: dump|compare <file.json> <folder>...');
  const now = await snapshot(folders);
  if (mode === 'dump') {
    writeFileSync(file, JSON.stringify(now));
    console.log(`${Object.keys(now).length} files → ${file}`);
    return;
  }
  const old = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Snapshot | string>;
  let same = 0;
  const counts = { title: 0, headings: 0, text: 0, error: 0 };
  for (const [key, after] of Object.entries(now)) {
    const before = old[key];
    if (JSON.stringify(before) === JSON.stringify(after)) {
      same++;
      continue;
    }
    console.log(`\n## ${key}`);
    if (typeof before === 'string' || typeof after === 'string') {
      counts.error++;
      console.log(`  ${JSON.stringify(before).slice(0, 200)} → ${JSON.stringify(after).slice(0, 200)}`);
      continue;
    }
    if (before.title !== after.title) {
      counts.title++;
      console.log(`  title: ${JSON.stringify(before.title)} → ${JSON.stringify(after.title)}`);
    }
    if (JSON.stringify(before.headings) !== JSON.stringify(after.headings)) {
      counts.headings++;
      const gone = before.headings.filter((h) => !after.headings.includes(h));
      const added = after.headings.filter((h) => !before.headings.includes(h));
      console.log(
        `  headings ${before.headings.length} → ${after.headings.length}; only before: ${JSON.stringify(gone)}; only after: ${JSON.stringify(added)}`,
      );
    }
    if (before.text !== after.text) {
      counts.text++;
      console.log(
        `  text ${before.text.length} → ${after.text.length} chars, first difference ${firstDifference(before.text, after.text)}`,
      );
    }
  }
  const total = Object.keys(now).length;
  console.log(
    `\n${total} files: ${same} identical, ${total - same} changed (title ${counts.title}, headings ${counts.headings}, text ${counts.text}, error status ${counts.error})`,
  );
}

await main();
