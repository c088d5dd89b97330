// Which collection a mixed library's file or passage came from: its first folder under the library, or the .jsonl it
// is a line of (a Wikipedia passage id "2wiki-p00012" names its set). Read by mixed-ranks.ts and mixed-blend.ts.
import { readdir } from 'node:fs/promises';
import { relative } from 'node:path';

export async function collectionOrigin(folder: string): Promise<(id: string) => string> {
  const origin = new Map<string, string>();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const top = relative(folder, `${entry.parentPath}/${entry.name}`).split('/')[0];
    origin.set(entry.name.replace(/\.[^.]+$/, ''), top.replace(/\.jsonl$/, ''));
  }
  return (id) => origin.get(id) ?? (/^(\w+)-p\d+$/.exec(id)?.[1] ?? '?').replace('2wiki', '2wikimultihopqa');
}
