// PDFs against the same text as Markdown (issue 22, item 4): prints every Markdown page of a documentation folder to
// PDF the way a person saves docs from the browser — the page rendered as HTML in headless Chromium and printed with
// Chromium's default header (date, title) and footer (address, "page / pages") — then runs the CLI bench on the
// Markdown folder and on the PDF folder with the same questions and prints CR@k and R@k side by side.
//
//   node --import tsx test/bench/pdf-vs-markdown.ts [--docs /work/shared/bench/vuedocs/docs]
//     [--questions /work/shared/bench/vuedocs/questions.jsonl] [--out .cache/pdf-vs-markdown]
//     [--embedder none] [--modes default,bm25] [--outline] [--tagged] [--style site|plain] [--skip-print] [--limit N]
//
// `--outline` also writes the PDF's outline (bookmarks from the headings, Chromium's "document outline"); without it
// the parser has only font sizes and numbering to find the headings. `--tagged` prints a tagged PDF (its structure
// tree names the headings H1–H6), as Chromium's own "Save as PDF" and `--print-to-pdf` do; Playwright's print, this
// bench's default, is untagged. The PDFs go to <out>/pdf (gitignored .cache), <out>/pdf-plain for `--style plain`,
// with "-tagged" after the name when tagged.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import process from 'node:process';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import markdownIt from 'markdown-it';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/lib/browser.ts';

const run = promisify(execFile);

const { values: opts } = parseArgs({
  options: {
    docs: { type: 'string', default: '/work/shared/bench/vuedocs/docs' },
    questions: { type: 'string', default: '/work/shared/bench/vuedocs/questions.jsonl' },
    out: { type: 'string', default: '.cache/pdf-vs-markdown' },
    embedder: { type: 'string', default: 'none' },
    modes: { type: 'string', default: 'default,bm25' },
    budgets: { type: 'string', default: '1000,3000' },
    outline: { type: 'boolean', default: false },
    tagged: { type: 'boolean', default: false },
    style: { type: 'string', default: 'site' },
    'skip-print': { type: 'boolean', default: false },
    'skip-bench': { type: 'boolean', default: false },
    limit: { type: 'string' },
  },
});

const md = markdownIt({ html: true, linkify: true, typographer: false });

/**
 * VitePress markup a reader never sees on the site: front matter, heading ids, and `::: tip` containers (drawn as
 * boxes).
 */
function siteMarkdown(source: string): string {
  let inFence = false;
  // YAML front matter is page metadata, not shown.
  const body = source.replace(/^---\n[\s\S]*?\n---\n/, '');
  return body
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      if (inFence) return line;
      const open = /^:::\s*([\w-]+)\s*(.*)$/.exec(line);
      if (open) {
        const title = open[2].trim() || open[1].toUpperCase();
        return `\n<div class="custom-block ${open[1]}">\n\n<p class="custom-block-title">${title}</p>\n\n`;
      }
      if (/^:::\s*$/.test(line)) return '\n</div>\n';
      return line.replace(/\s*\{#[^}]*\}\s*$/, '');
    })
    .join('\n');
}

const STYLE = `
  body { font: 16px/1.7 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #213547; margin: 0; }
  main { max-width: 46rem; margin: 0 auto; }
  h1 { font-size: 2rem; line-height: 1.25; margin: 0 0 1rem; }
  h2 { font-size: 1.5rem; margin: 2.2rem 0 0.8rem; padding-top: 1rem; border-top: 1px solid #e2e2e3; }
  h3 { font-size: 1.25rem; margin: 1.6rem 0 0.6rem; }
  h4 { font-size: 1.1rem; margin: 1.2rem 0 0.4rem; }
  code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.875em; }
  pre { background: #f6f6f7; padding: 0.8rem 1rem; border-radius: 6px; white-space: pre-wrap; }
  pre code { font-size: 0.85em; line-height: 1.6; }
  .custom-block { border-radius: 6px; padding: 0.2rem 1rem; background: #f1f5fd; margin: 1rem 0; }
  .custom-block-title { font-weight: 600; }
  table { border-collapse: collapse; } td, th { border: 1px solid #e2e2e3; padding: 0.3rem 0.6rem; }
`;

/**
 * `--style plain`: the held-out PDF set's printing (test/bench/heldout/pdfdocs/build.mjs) on the same pages — 11 pt
 * body at 1.45 line height, 9 pt code, no print header or footer, Letter paper — so a gap that shows only on those
 * PDFs can be looked for on the shared Vue text instead of on the held-out questions.
 */
const PLAIN_STYLE = `
  body { font: 11pt/1.45 "DejaVu Sans", sans-serif; margin: 0 1.5cm; }
  pre, code { font: 9pt "DejaVu Sans Mono", monospace; } pre { white-space: pre-wrap; background: #f4f4f4; padding: 6px; }
  table { border-collapse: collapse; } td, th { border: 1px solid #999; padding: 2px 6px; }
`;

/** The site's address of a flattened file name ("guide__essentials__computed" → …/guide/essentials/computed.html). */
function siteUrl(name: string): string {
  return `https://vuejs.org/${name.split('__').join('/')}.html`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Chromium's print header and footer: date and title at the top, address and "page/pages" at the bottom. */
const headerTemplate = `<div style="font-size:8px;width:100%;padding:0 1cm;display:flex;justify-content:space-between">
  <span class="date"></span><span class="title"></span><span></span></div>`;
const footerTemplate = (url: string): string =>
  `<div style="font-size:8px;width:100%;padding:0 1cm;display:flex;justify-content:space-between">
  <span>${escapeHtml(url)}</span><span><span class="pageNumber"></span>/<span class="totalPages"></span></span></div>`;

async function printAll(
  docs: string,
  outDir: string,
  limit: number,
  outline: boolean,
  plain: boolean,
  tagged: boolean,
): Promise<number> {
  await mkdir(outDir, { recursive: true });
  const files = (await readdir(docs))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .slice(0, limit);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    let n = 0;
    for (const file of files) {
      const name = basename(file, '.md');
      const source = await readFile(join(docs, file), 'utf8');
      const title = /^#\s+(.+)$/m.exec(source)?.[1].replace(/\s*\{#[^}]*\}\s*$/, '') ?? name;
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} | Vue.js</title>
        <style>${plain ? PLAIN_STYLE : STYLE}</style></head><body><main>${md.render(siteMarkdown(source))}</main></body></html>`;
      await page.setContent(html, { waitUntil: 'load' });
      if (plain) {
        await page.pdf({
          path: join(outDir, `${name}.pdf`),
          format: 'Letter',
          margin: { top: '1cm', bottom: '1cm' },
          tagged,
        });
        n++;
        continue;
      }
      await page.pdf({
        path: join(outDir, `${name}.pdf`),
        format: 'A4',
        margin: { top: '1.6cm', bottom: '1.6cm', left: '1.8cm', right: '1.8cm' },
        displayHeaderFooter: true,
        headerTemplate,
        footerTemplate: footerTemplate(siteUrl(name)),
        printBackground: true,
        outline,
        tagged: outline || tagged,
      });
      n++;
    }
    return n;
  } finally {
    await browser.close();
  }
}

interface ModeResult {
  cr: Record<string, number>;
  recall: Record<string, number | null>;
}

async function bench(corpus: string, json: string): Promise<Record<string, ModeResult>> {
  const args = [
    '--import',
    'tsx',
    'src/cli/main.ts',
    'bench',
    '--corpus',
    corpus,
    '--questions',
    opts.questions!,
  ];
  args.push('--embedder', opts.embedder!, '--modes', opts.modes!, '--budgets', opts.budgets!, '--json', json);
  await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(await readFile(json, 'utf8')) as { modes: Record<string, ModeResult> }).modes;
}

async function chunkStats(corpus: string): Promise<{ files: number; chunks: number; meanTokens: number }> {
  const { prepareCorpus } = await import('../../src/cli/benchData.ts');
  const prepared = await prepareCorpus(corpus, 1200);
  const chunks = prepared.chunks;
  const tokens = chunks.reduce((s, c) => s + c.tokens, 0);
  return { files: prepared.documents.length, chunks: chunks.length, meanTokens: tokens / chunks.length };
}

async function main(): Promise<void> {
  const out = resolve(opts.out!);
  if (opts.style !== 'site' && opts.style !== 'plain')
    throw new Error('pdf-vs-markdown: --style is site or plain');
  const plain = opts.style === 'plain';
  const pdfDir = join(
    out,
    `${plain ? 'pdf-plain' : opts.outline ? 'pdf-outline' : 'pdf'}${opts.tagged && !opts.outline ? '-tagged' : ''}`,
  );
  const limit = opts.limit ? Number(opts.limit) : Infinity;
  if (!opts['skip-print']) {
    const started = performance.now();
    const n = await printAll(opts.docs!, pdfDir, limit, opts.outline!, plain, opts.tagged!);
    console.log(`printed ${n} PDFs to ${pdfDir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    await stat(pdfDir);
  }
  if (opts['skip-bench']) return;
  const md = await chunkStats(opts.docs!);
  const pdf = await chunkStats(pdfDir);
  console.log(
    `Markdown: ${md.files} documents, ${md.chunks} chunks, ${md.meanTokens.toFixed(0)} tokens each`,
  );
  console.log(
    `PDF:      ${pdf.files} documents, ${pdf.chunks} chunks, ${pdf.meanTokens.toFixed(0)} tokens each`,
  );
  const markdown = await bench(opts.docs!, join(out, 'bench-markdown.json'));
  const pdfs = await bench(pdfDir, join(out, `bench-${basename(pdfDir)}.json`));
  const budgets = opts.budgets!.split(',');
  const fmt = (v: number | null | undefined): string => (v == null ? '–' : (100 * v).toFixed(1));
  const header = ['mode', ...budgets.map((b) => `CR@${b} md / pdf`), 'R@5 md / pdf'];
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const mode of Object.keys(markdown)) {
    const a = markdown[mode];
    const b = pdfs[mode];
    const cells = budgets.map((k) => `${fmt(a.cr[k])} / ${fmt(b?.cr[k])}`);
    console.log(`| ${mode} | ${cells.join(' | ')} | ${fmt(a.recall['5'])} / ${fmt(b?.recall['5'])} |`);
  }
}

await main();
