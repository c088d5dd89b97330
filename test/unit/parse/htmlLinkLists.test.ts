// A saved page that marks none of its furniture (plain <div>s, as older generators write it) is read without its
// blocks of links (the sidebar listing every page, a table of contents), and nothing of its prose is lost: a
// paragraph that links a few words, a lone "Next" link and a page that is all links stay.
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/core/parse/html.ts';
import { linkLists } from '../../../src/core/parse/linkLists.ts';

const PAGES = ['Installation', 'Ownership', 'References and Borrowing', 'Structs', 'Enums', 'Error Handling'];

/** An mdBook-like page written with <div>s only: banner, sidebar of every page, content, pager, footer. */
const divPage = `<!DOCTYPE html><html><head><title>Ownership - book documentation</title></head><body>
<div class="site-header"><a href="index.html">book documentation</a><div class="search"><input type="search"></div></div>
<div class="sidebar"><p class="sidebar-title">Pages</p><ol>
${PAGES.map((p) => `<li><a href="${p}.html">${p}</a></li>`).join('\n')}
</ol></div>
<div class="content">
<h1>Ownership</h1>
<p>Ownership is a set of rules that govern how a program manages memory; see <a href="refs.html">references</a>.</p>
<ul><li>Each value has an owner.</li><li>There can only be one owner at a time.</li></ul>
<div class="pager"><a href="Installation.html">Previous: Installation</a></div>
</div>
<div class="site-footer"><p>Edit this page.</p></div>
</body></html>`;

describe('HTML pages that mark nothing: blocks of links are a menu', () => {
  it('leaves out the sidebar of every page and keeps the prose, its links and a lone pager link', () => {
    const page = parseHtml(divPage, { page: true });
    for (const other of ['Installation.html', 'Structs', 'Enums', 'Error Handling', 'Pages'])
      expect(page.text).not.toContain(`\n${other}\n`);
    expect(page.text).not.toContain('Error Handling');
    expect(page.text).toContain('see references.');
    expect(page.text).toContain('Each value has an owner.');
    expect(page.text).toContain('Previous: Installation');
    expect(page.text).toContain('Edit this page.');
    expect(page.sections.map((s) => s.heading)).toContain('Ownership');
  });

  it('leaves out the sidebar of a page whose only role is not furniture, and its permalink marks as before', () => {
    const html = divPage
      .replace('<h1>Ownership</h1>', '<h1>Ownership<a class="anchor" href="#ownership">#</a></h1>')
      .replace('<div class="search">', '<div class="search"><span role="button">Menu</span>');
    const page = parseHtml(html, { page: true });
    expect(page.text).not.toContain('Error Handling');
    expect(page.sections.map((s) => s.heading)).toContain('Ownership');
    expect(page.text).toContain('Each value has an owner.');
  });

  it('takes a role written as text in a code example for no mark of furniture', () => {
    const html = divPage.replace(
      '<ul><li>Each value',
      '<pre><code>&lt;div role=&quot;navigation&quot;&gt;</code></pre><ul><li>Each value',
    );
    expect(parseHtml(html, { page: true }).text).not.toContain('Error Handling');
  });

  it('reads the page as before when asked to keep the links (linkLists: false)', () => {
    const page = parseHtml(divPage, { page: true, linkLists: false });
    expect(page.text).toContain('Error Handling');
    expect(page.text).toContain('Structs');
  });

  it('finds the sidebar and its list, and neither the prose nor the pager nor the banner', () => {
    const found = linkLists(divPage);
    // The sidebar <div> and its <ol>: 2 blocks (ordinals depend on the page; the count and what they drop do not).
    expect(found.size).toBe(2);
  });

  it('keeps a page that is all links whole, and a fragment (HTML inside Markdown) whole', () => {
    const siteMap = `<html><head><title>Ownership</title></head><body><div><ul>${PAGES.map((p) => `<li><a href="${p}.html">${p}</a></li>`).join('')}</ul></div></body></html>`;
    expect(parseHtml(siteMap, { page: true }).text).toContain('Error Handling');
    expect(parseHtml(divPage).text).toContain('Error Handling');
  });

  it("keeps a list of links in the page's own content that does not link the page itself", () => {
    const html = `<html><head><title>Managing state</title></head><body><h1>Managing state</h1>
<p>In this chapter you will learn:</p><ul>
<li><a href="a">How to think about UI as state</a></li><li><a href="b">How to structure state well</a></li>
<li><a href="c">How to share state between components</a></li></ul></body></html>`;
    expect(linkLists(html).size).toBe(0);
    expect(parseHtml(html, { page: true })).toEqual(parseHtml(html));
  });

  it('takes a block of links for a menu when it links the page by a part of its <title> or its first heading', () => {
    const sidebar = (current: string) =>
      `<div><ul>${['Intro', current, 'Next steps'].map((p) => `<li><a href="x">${p}</a></li>`).join('')}</ul></div>`;
    const titled = `<html><head><title>Events | My Site</title></head><body>${sidebar('Events')}<h2>Listening</h2><p>Body text of the page.</p></body></html>`;
    const headed = `<html><head><title>x</title></head><body>${sidebar('Event handling')}<h1>Event Handling</h1><p>Body text of the page.</p></body></html>`;
    expect(parseHtml(titled, { page: true }).text).not.toContain('Next steps');
    expect(parseHtml(headed, { page: true }).text).not.toContain('Next steps');
    expect(parseHtml(headed, { page: true }).text).toContain('Body text of the page.');
  });

  it("keeps an index page (texinfo's shape): the block around its heading and table of links is its content", () => {
    const html = `<html><head><title>Index</title></head><body><div class="unnumbered">
<div class="header"><p>Previous: <a href="a.html">Closures</a>, Up: <a href="index.html">libffi</a> [<a href="#Index">Index</a>]</p></div>
<h2>Index</h2><table>
<tr><td><a href="a.html#abi">ABI</a></td><td><a href="a.html">Introduction</a></td></tr>
<tr><td><a href="b.html#cc">calling convention</a></td><td><a href="b.html">Types</a></td></tr>
<tr><td><a href="c.html#closures">closures</a></td><td><a href="c.html">The Closure API</a></td></tr>
<tr><td><a href="d.html#ffi">foreign function interface</a></td><td><a href="d.html">Introduction</a></td></tr>
</table></div></body></html>`;
    expect(linkLists(html).size).toBe(0);
    expect(parseHtml(html, { page: true }).text).toContain('calling convention');
  });

  it('keeps a list that links a few words of each item', () => {
    const html = `<html><body><h1>Options</h1><ul>
<li><a href="a">timeout</a>: how long to wait for the server before the request fails.</li>
<li><a href="b">retries</a>: how often a failed request is sent again.</li>
<li><a href="c">agent</a>: the connection pool the requests share.</li></ul></body></html>`;
    expect(parseHtml(html, { page: true })).toEqual(parseHtml(html));
  });

  it('stays linear on many unclosed blocks of links', () => {
    const started = performance.now();
    const page = parseHtml(
      '<h1>x</h1>' + '<div><a href="x">x</a><a href="y">y</a><a href="z">z</a>'.repeat(50_000) + '<p>end',
      {
        page: true,
      },
    );
    expect(page.text.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
