// A saved documentation page is read without the site's furniture the page marks (its navigation, banner, footer
// and sidebar), and nothing of a page's own content is lost: pages shaped as real generators write them.
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../../src/core/parse/index.ts';
import { parseHtml } from '../../../src/core/parse/html.ts';
import { parseMarkdown } from '../../../src/core/parse/markdown.ts';

const MODULES = ['Assertion testing', 'Buffer', 'Child processes', 'File system', 'Readline', 'Streams'];

/** The shape of a Node.js API page: module list and table of contents as role="navigation", the site banner in <header>. */
const nodeApiPage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Readline | Node.js v20.20.2 Documentation</title><script>var x = 1;</script></head>
<body class="alt apidoc" id="api-section-readline">
  <a href="#apicontent" class="skip-to-content">Skip to content</a>
  <div id="content" class="clearfix">
    <div role="navigation" id="column2" class="interior">
      <div id="intro" class="interior"><a href="/" title="Go back to the home page">Node.js</a></div>
      <ul>${MODULES.map((m) => `<li><a href="x.html">${m}</a></li>`).join('\n')}</ul>
      <hr class="line"><ul><li><a href="y">Code repository and issue tracker</a></li></ul>
    </div>
    <div id="column1" data-id="readline" class="interior">
      <header class="header">
        <div class="header-container"><h1>Node.js v20.20.2 documentation</h1>
          <button class="theme-toggle-btn" hidden><svg><path d="M0 0h24"/></svg></button></div>
        <div id="gtoc"><ul><li class="pinned-header">Node.js v20.20.2</li>
          <li class="picker-header"><a href="#toc-picker">Table of contents</a>
            <div class="picker"><div class="toc"><ul id="toc-picker"><li><a href="#readline">Readline</a></li></ul></div></div></li>
          <li class="picker-header"><a href="#gtoc-picker">Index</a>
            <div class="picker"><ul id="gtoc-picker">${MODULES.map((m) => `<li><a href="x.html">${m}</a></li>`).join('')}</ul></div></li>
        </ul></div><hr>
      </header>
      <details role="navigation" id="toc" open><summary>Table of contents</summary><ul>
        <li><a href="#readline">Readline</a><ul><li><a href="#event-line">Event: <code>'line'</code></a></li></ul></li></ul>
      </details>
      <div role="main" id="apicontent">
        <section><h2>Readline<span><a class="mark" href="#readline" id="readline">#</a></span></h2>
        <p>The <code>node:readline</code> module provides an interface for reading data from a Readable stream one line at a time.</p>
        <section><h3>Event: <code>'line'</code></h3><p>The <code>'line'</code> event is emitted whenever the input stream receives an end-of-line input.</p>
        <pre><code class="language-js">rl.on('line', (input) =&gt; {
console.log(input);
});</code></pre></section></section>
        <!-- API END -->
      </div>
    </div>
  </div>
</body></html>`;

describe('HTML pages: the site furniture the page marks is not read', () => {
  it("reads a Node.js API page's main content only: no module list, no banner heading, no table of contents", () => {
    const page = parseHtml(nodeApiPage, { page: true });
    expect(page.title).toBe('Readline');
    expect(page.text).toBe(
      'Readline\n\n' +
        'The node:readline module provides an interface for reading data from a Readable stream one line at a time.\n\n' +
        "Event: 'line'\n\n" +
        "The 'line' event is emitted whenever the input stream receives an end-of-line input.\n\n" +
        "rl.on('line', (input) => {\nconsole.log(input);\n});",
    );
    expect(page.sections.map((s) => [s.heading, s.level])).toEqual([
      ['Readline', 2],
      ["Event: 'line'", 3],
    ]);
    // The same page read whole (as a fragment is) has all of it: the furniture is what the page option leaves out.
    const whole = parseHtml(nodeApiPage);
    expect(whole.title).toBe('Readline | Node.js v20.20.2 Documentation');
    expect(whole.text).toContain('Readline#');
    for (const furniture of [
      'Child processes',
      'Node.js v20.20.2 documentation',
      'Table of contents',
      'Skip to content',
    ])
      expect(whole.text).toContain(furniture);
    expect(whole.sections[1]).toMatchObject({ heading: 'Node.js v20.20.2 documentation', level: 1 });
  });

  it('reads <main> of a book-shaped page (sidebar <nav>, menu bar outside it) with its own header and asides', () => {
    const page = parseHtml(
      `<html><head><title>Using Structs - The Book</title></head><body>
      <nav id="sidebar" class="sidebar" aria-label="Table of contents"><ol class="chapter">
        <li><a href="ch01.html">1. Getting Started</a></li><li><a href="ch05.html">5. Using Structs</a></li></ol></nav>
      <div id="page-wrapper"><div class="page"><div id="menu-bar"><h1 class="menu-title">The Book</h1></div>
      <div id="content"><main>
        <header><h1>Using Structs</h1><p>Chapter 5</p></header>
        <p>A struct groups related values.</p>
        <aside class="note"><p>Tuple structs have no field names.</p></aside>
        <nav class="nav-wrapper"><a href="ch04.html">Previous</a><a href="ch06.html">Next</a></nav>
        <footer><p>Last edited with the chapter.</p></footer>
      </main></div></div></div></body></html>`,
      { page: true },
    );
    expect(page.text).toBe(
      'Using Structs\n\nChapter 5\n\nA struct groups related values.\n\nTuple structs have no field names.\n\n' +
        'Last edited with the chapter.',
    );
    expect(page.sections.map((s) => s.heading)).toEqual(['Using Structs']);
  });

  it('without <main>, leaves out the page-level header, footer, sidebar and navigation but keeps the article whole', () => {
    const page = parseHtml(
      `<body><header class="site"><a href="/">Example Docs</a><nav><a href="/guide">Guide</a><a href="/api">API</a></nav></header>
      <div class="search" role="search"><input placeholder="Search"><button>Search docs</button></div>
      <aside class="sidebar"><ul><li>Installation</li><li>Configuration</li></ul></aside>
      <article><header><h1>Configuration</h1><p class="byline">Updated in version 3</p></header>
        <p>Set <code>port</code> in the file.</p>
        <aside><p>The default port is 8080.</p></aside>
        <section><h2>Logging</h2><header><p>Where the log goes.</p></header><p>Logs go to stderr.</p></section>
        <footer><p>See also: Deployment.</p></footer></article>
      <div class="rail"><div><div><p>Edit this page</p></div></div></div>
      <footer class="site"><p>Copyright Example Inc.</p></footer></body>`,
      { page: true },
    );
    expect(page.title).toBe('Configuration');
    expect(page.text).toBe(
      'Configuration\n\nUpdated in version 3\n\nSet port in the file.\n\nThe default port is 8080.\n\n' +
        'Logging\n\nWhere the log goes.\n\nLogs go to stderr.\n\nSee also: Deployment.\n\nEdit this page',
    );
  });

  it('finds the end of a navigation <div> across nested <div>s and void elements, and reads what follows', () => {
    const page = parseHtml(
      '<div role="navigation"><div><div>one<br>two<img src="a"></div></div><hr><div>three</div></div>' +
        '<div><p>after</p></div><div ROLE="Navigation Menu">four</div><p>end</p>',
      { page: true },
    );
    expect(page.text).toBe('after\n\nend');
  });

  it('reads a page that is all navigation (a site map) whole rather than empty', () => {
    const page = parseHtml(
      '<html><head><title>Site map</title></head><body><nav><ul><li><a href="a">Alpha</a></li><li><a href="b">Beta</a></li></ul></nav></body></html>',
      { page: true },
    );
    expect(page.title).toBe('Site map');
    expect(page.text).toBe('Alpha\nBeta');
  });

  it('reads the rest of a page whose <main> is an empty shell (filled by a script), without its navigation', () => {
    const page = parseHtml(
      '<nav>Home Blog</nav><main id="app"></main><div class="static"><h1>Notes</h1><p>Text for readers.</p></div>',
      { page: true },
    );
    expect(page.text).toBe('Notes\n\nText for readers.');
  });

  it('reads a page that marks nothing exactly as before', () => {
    const html =
      '<html><head><title>T</title></head><body><div><h2>A</h2><p>one</p><ul><li>x</li></ul></div></body></html>';
    expect(parseHtml(html, { page: true })).toEqual(parseHtml(html));
  });

  it('leaves HTML inside Markdown (a fragment, not a page) whole, <nav> included', () => {
    const md = parseMarkdown(
      '# Menus\n\n<nav>\n<a href="/">Home</a> and <a href="/docs">Docs</a>\n</nav>\n\nText.\n',
    );
    expect(md.text).toBe('Menus\n\nHome and Docs\n\nText.');
  });

  it('an .html file goes through the page reading', async () => {
    const bytes = new TextEncoder().encode(nodeApiPage);
    const [html] = (await parseFile('readline.html', bytes)).documents;
    expect(html.text.startsWith('Readline\n')).toBe(true);
    expect(html.title).toBe('Readline');
    expect(html.text).not.toContain('Child processes');
  });

  it("takes the page's name from a <title> that adds the site's name, and only when it is the page's first heading", () => {
    const named = (title: string, body: string) =>
      parseHtml(
        `<html><head><title>${title}</title></head><body><nav>Home</nav><main>${body}</main></body></html>`,
        {
          page: true,
        },
      ).title;
    expect(named('Using Structs - The Rust Book', '<h1>Using Structs</h1><p>x</p>')).toBe('Using Structs');
    expect(named('Docs » Configuration', '<h2>Configuration</h2><p>x</p>')).toBe('Configuration');
    expect(named('Release notes | 2024 — Example', '<h1>Release notes</h1><p>x</p>')).toBe('Release notes');
    // No end of the <title> is the heading, or no separator: the <title> stays whole.
    expect(named('Using Structs - The Rust Book', '<h1>Structs</h1><p>x</p>')).toBe(
      'Using Structs - The Rust Book',
    );
    expect(named('Client-side rendering', '<h1>Client</h1><p>x</p>')).toBe('Client-side rendering');
    expect(named('A page', '<p>no heading</p>')).toBe('A page');
  });

  it('leaves permalink marks out of headings, and a heading that ends in # as written', () => {
    const page = parseHtml(
      '<main><h2>Streams<a class="mark" href="#streams">#</a></h2><p>x</p>' +
        '<h3 id="s">Buffering<a class="headerlink" href="#s" title="Link">¶</a></h3><p>y</p>' +
        '<h3>Writing C#<a href="#c"> \u200b</a></h3><p>z</p><h3><a href="#d">Real link</a></h3></main>',
      { page: true },
    );
    expect(page.sections.map((s) => s.heading)).toEqual(['Streams', 'Buffering', 'Writing C#', 'Real link']);
  });

  it('stays linear on many unclosed navigation elements', () => {
    const started = performance.now();
    const page = parseHtml('<div role="navigation"><p>x'.repeat(100_000), { page: true });
    expect(page.text.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
