// A folder of Markdown pages written out as a saved static documentation site, one .html per page (same name, so a
// set's gold ids still resolve), each page carrying the whole site's furniture as generators write it: a banner
// with the site's name and a search box, a sidebar listing every page, previous / next links and a footer. Issue
// 45: what the HTML form of a documentation set costs retrieval, against the same pages as Markdown.
// --shape landmarks (default): the furniture in <header>, <nav> and <footer> and the page in <main>, as mdBook,
// Docusaurus or VitePress mark it. --shape divs: the same furniture in plain <div>s (no landmark, no role), as
// older generators write it: what a reader of marked furniture cannot leave out. --shape bare: the page alone (its
// <title> and body, no furniture): what the HTML rendering itself changes against the Markdown reader.
// Usage: node --import tsx test/bench/htmlSite.ts <markdown folder> <out folder> [--shape landmarks|divs|bare]
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import MarkdownIt from 'markdown-it';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { shape: { type: 'string', default: 'landmarks' } },
});
const [from, to] = positionals;
if (!from || !to || !['landmarks', 'divs', 'bare'].includes(opts.shape))
  throw new Error('usage: htmlSite.ts <markdown folder> <out folder> [--shape landmarks|divs|bare]');
const landmarks = opts.shape === 'landmarks';
const site = basename(from) === 'docs' ? basename(join(from, '..')) : basename(from);
const md = new MarkdownIt({ html: true });
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const names = (await readdir(from)).filter((n) => n.endsWith('.md')).sort();
const pages = await Promise.all(
  names.map(async (name) => {
    const text = await readFile(join(from, name), 'utf8');
    const title = /^#{1,6}\s+(.+?)(?:\s+\{#[^}]*\})?$/m.exec(text)?.[1].trim() ?? name.slice(0, -3);
    return { name: name.slice(0, -3), title, body: md.render(text) };
  }),
);
const sidebar = pages.map((p) => `<li><a href="${p.name}.html">${escape(p.title)}</a></li>`).join('\n');
const tag = (landmark: string, cls: string): [string, string] =>
  landmarks ? [`<${landmark} class="${cls}">`, `</${landmark}>`] : [`<div class="${cls}">`, '</div>'];

await mkdir(to, { recursive: true });
for (const [i, page] of pages.entries()) {
  const [headerOpen, headerClose] = tag('header', 'site-header');
  const [navOpen, navClose] = tag('nav', 'sidebar');
  const [pagerOpen, pagerClose] = tag('nav', 'pager');
  const [mainOpen, mainClose] = tag('main', 'content');
  const [footerOpen, footerClose] = tag('footer', 'site-footer');
  const prev = pages[i - 1];
  const next = pages[i + 1];
  const bare = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(page.title)}</title></head>
<body>
${page.body}
</body></html>
`;
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(page.title)} - ${site} documentation</title>
<link rel="stylesheet" href="style.css"></head>
<body>
${headerOpen}<a href="index.html">${site} documentation</a>
<div class="search"><input type="search" placeholder="Search the docs"></div>${headerClose}
${navOpen}<p class="sidebar-title">Pages</p><ol>
${sidebar}
</ol>${navClose}
${mainOpen}
${page.body}
${pagerOpen}${prev ? `<a href="${prev.name}.html">Previous: ${escape(prev.title)}</a>` : ''}
${next ? `<a href="${next.name}.html">Next: ${escape(next.title)}</a>` : ''}${pagerClose}
${mainClose}
${footerOpen}<p>Edit this page. ${site} documentation, built from its Markdown sources.</p>${footerClose}
</body></html>
`;
  await writeFile(join(to, `${page.name}.html`), opts.shape === 'bare' ? bare : html);
}
process.stderr.write(`htmlSite: ${pages.length} pages of ${from} written to ${to} (${opts.shape})\n`);
