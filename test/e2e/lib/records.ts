// Generated JSONL libraries for the specs that need many small documents (a drop long enough to watch, or to
// ask into): one JSON object a line, {title, text}, as the app's .jsonl parser reads them.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** `n` records, the i-th titled `Record i` (or `title(i)`) with `text(i)`, one JSON line each. */
export function jsonlRecords(
  n: number,
  text: (i: number) => string,
  title: (i: number) => string = (i) => `Record ${i}`,
): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ title: title(i), text: text(i) }));
  return lines.join('\n') + '\n';
}

/** Writes `content` as `records.jsonl` in `dir` (a test's tmp) and returns its path. */
export async function writeRecords(dir: string, content: string): Promise<string> {
  const file = join(dir, 'records.jsonl');
  await writeFile(file, content);
  return file;
}
