// Rebuilds the pdfdocs held-out set: Electron's tutorial guides (docs/tutorial/*.md of electron/electron at a pinned
// commit, between 3,500 and 16,000 bytes: 44 guides; the API reference pages are the electronapi set, so no page is
// in both), each rendered to a real PDF the way a person would save a page: Markdown → HTML with markdown-it, then
// printed by headless Chromium. The app reads these with pdf.js, as a dropped PDF.
// Usage: node test/bench/heldout/pdfdocs/build.mjs <git dir of electron/electron> /work/heldout/pdfdocs [chromium]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { printToPdf } from '../../lib/printPdf.mjs';
import { copyLicenses, flatName, listFiles, openSet, readBlob } from '../gitSource.mjs';

const COMMIT = '96f3996d8d3ce6e2fcfb86326fc4b953b53936fb';
const MIN_BYTES = 3500;
const MAX_BYTES = 16000;
const chromium = process.argv[4] ?? '/usr/bin/chromium';

const { gitDir, outDir, docs } = openSet('test/bench/heldout/pdfdocs/build.mjs', COMMIT);
const md = new MarkdownIt({ html: true, linkify: false });
const work = mkdtempSync(join(tmpdir(), 'pdfdocs-'));
const style = `body { font: 11pt/1.45 "DejaVu Sans", sans-serif; margin: 0 1.5cm; }
pre, code { font: 9pt "DejaVu Sans Mono", monospace; } pre { white-space: pre-wrap; background: #f4f4f4; padding: 6px; }
table { border-collapse: collapse; } td, th { border: 1px solid #999; padding: 2px 6px; }`;
const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
let files = 0;
try {
  for (const { path, size } of listFiles(gitDir, COMMIT, 'docs/tutorial/')) {
    if (!path.endsWith('.md') || size < MIN_BYTES || size > MAX_BYTES) continue;
    let text = readBlob(gitDir, COMMIT, path).toString('utf8');
    // YAML front matter is the site generator's metadata; a rendered page does not show it.
    let title = '';
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
    if (front) {
      title = /^title:\s*['"]?(.*?)['"]?\s*$/m.exec(front[1])?.[1] ?? '';
      text = text.slice(front[0].length);
    }
    title ||= /^#\s+(.*)$/m.exec(text)?.[1] ?? path;
    const heading = /^#\s/m.test(text) ? '' : `<h1>${escape(title)}</h1>\n`;
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>${style}</style></head><body>${heading}${md.render(text)}</body></html>`;
    const name = flatName(path.slice('docs/'.length)).replace(/\.md$/, '');
    const htmlFile = join(work, `${name}.html`);
    writeFileSync(htmlFile, html);
    printToPdf(htmlFile, join(docs, `${name}.pdf`), chromium);
    files += 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
copyLicenses(gitDir, COMMIT, outDir, ['LICENSE']);
process.stdout.write(`pdfdocs: ${files} PDFs in ${docs}\n`);
