// One list of supported file types: the CLI's folder walker, the page's intake screen, the page's drop walker and
// the parser keep exactly the same files, and the file input offers exactly those extensions.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectFiles } from '../../../src/cli/index.ts';
import { ACCEPT_ATTRIBUTE } from '../../../src/core/parse/formats.ts';
import { ParseError, parseFile } from '../../../src/core/parse/index.ts';
import { fromDrop } from '../../../src/ui/files.ts';
import { screenFiles } from '../../../src/ui/intake.ts';

const CANDIDATES = [
  'a.txt',
  'b.TXT',
  'c.text',
  'd.md',
  'e.markdown',
  'f.html',
  'g.htm',
  'h.xhtml',
  'i.pdf',
  'j.docx',
  'k.jsonl',
  'l.ndjson',
  'm.doc',
  'n.rtf',
  'o.csv',
  'p.json',
  'q.jpg',
  'q2.PNG',
  'q3.webp',
  'q4.jpeg',
  'q5.heic',
  'q6.gif',
  'r.bundle',
  'no-extension',
  's.md.bak',
];

/** Written out by hand (not derived from the list under test), so a type dropped or added anywhere fails here. */
const EXPECTED = [
  'a.txt',
  'b.TXT',
  'c.text',
  'd.md',
  'e.markdown',
  'f.html',
  'g.htm',
  'h.xhtml',
  'i.pdf',
  'j.docx',
  'k.jsonl',
  'l.ndjson',
  'q.jpg',
  'q2.PNG',
  'q3.webp',
  'q4.jpeg',
];

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-formats-'));
  for (const name of CANDIDATES) await writeFile(join(dir, name), 'Some text.\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** True unless the parser refuses the file for its type (a fake PDF fails later, for its content). */
async function parserTakes(name: string): Promise<boolean> {
  try {
    await parseFile(name, new TextEncoder().encode('Some text.\n'));
    return true;
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    return !error.reason.startsWith('unsupported file type');
  }
}

/** A dropped folder as the browser's entry API presents it. */
function droppedFolder(names: string[]): DataTransfer {
  const fileEntry = (name: string) => ({
    isFile: true,
    isDirectory: false,
    fullPath: `/drop/${name}`,
    file: (resolve: (f: File) => void) => resolve(new File(['Some text.'], name)),
  });
  let listed = false;
  const folder = {
    isFile: false,
    isDirectory: true,
    fullPath: '/drop',
    createReader: () => ({
      readEntries: (resolve: (entries: unknown[]) => void) => {
        resolve(listed ? [] : names.map(fileEntry));
        listed = true;
      },
    }),
  };
  return {
    items: [{ kind: 'file', webkitGetAsEntry: () => folder }],
    files: [],
  } as unknown as DataTransfer;
}

describe('supported file types', () => {
  it('the CLI folder walker keeps exactly the supported files', async () => {
    const kept = (await collectFiles([dir])).map((f) => basename(f));
    expect(kept.sort()).toEqual([...EXPECTED].sort());
  });

  it('the page intake accepts exactly the supported files', () => {
    const picked = CANDIDATES.map((name) => ({
      name,
      file: { size: 10, arrayBuffer: async () => new ArrayBuffer(0) },
    }));
    const { accepted, refused } = screenFiles(picked);
    expect(accepted.map((f) => f.name).sort()).toEqual([...EXPECTED].sort());
    expect(refused.find((r) => r.file === 'q5.heic')?.reason).toMatch(
      /^unsupported file type \.heic \(supported: .*\.ndjson, \.png, \.jpg, \.jpeg, \.webp\); not read$/,
    );
  });

  it('the drop walker opens exactly the supported files', async () => {
    const picked = await fromDrop(droppedFolder(CANDIDATES));
    expect(picked.map((p) => p.name).sort()).toEqual(CANDIDATES.map((n) => `drop/${n}`).sort());
    const opened = picked.filter((p) => p.file !== null).map((p) => p.name.slice('drop/'.length));
    expect(opened.sort()).toEqual([...EXPECTED].sort());
  });

  it('the parser takes exactly the supported files', async () => {
    const taken: string[] = [];
    for (const name of CANDIDATES) if (await parserTakes(name)) taken.push(name);
    expect(taken.sort()).toEqual([...EXPECTED].sort());
  });

  it('the file input offers exactly the supported extensions, from the same list', async () => {
    const offered = ACCEPT_ATTRIBUTE.split(',');
    const expectedExtensions = [...new Set(EXPECTED.map((n) => n.slice(n.lastIndexOf('.')).toLowerCase()))];
    expect(offered.sort()).toEqual(expectedExtensions.sort());
    const view = await readFile(join(process.cwd(), 'src/ui/components/LibraryView.svelte'), 'utf8');
    const accepts = [...view.matchAll(/accept=(\{[^}]*\}|"[^"]*")/g)].map((m) => m[1]);
    // The document input takes the shared list; the two bundle inputs (import, open read-only) take bundles only.
    expect(accepts.sort()).toEqual(['{ACCEPT_ATTRIBUTE}', '{BUNDLE_EXTENSION}', '{BUNDLE_EXTENSION}']);
  });
});
