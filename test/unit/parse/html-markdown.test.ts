import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/core/parse/html.ts';
import { parseMarkdown } from '../../../src/core/parse/markdown.ts';

describe('HTML tokenizer', () => {
  it('drops script/style/noscript/template content even when it contains tags', () => {
    const html =
      '<p>a</p><script>if (x < 1) { document.write("<p>bad</p>") }</script><style>p{}</style>' +
      '<noscript>no</noscript><template><p>tpl</p></template><p>b</p>';
    expect(parseHtml(html).text).toBe('a\n\nb');
  });

  it('keeps <pre> line breaks, separates table cells, handles comments and attributes with ">"', () => {
    const html =
      '<pre>x = 1\ny = 2</pre><!-- <p>hidden</p> --><table><tr><td>a</td><td>b</td></tr></table>' +
      '<p title="a > b">c&lt;d</p>';
    expect(parseHtml(html).text).toBe('x = 1\ny = 2\n\na b\n\nc<d');
  });

  it('takes the title from the first h1 without <title>, and sections start at the headings', () => {
    const parsed = parseHtml('<p>intro</p><h2>Two</h2><p>x</p><h1>One</h1><p>y</p>');
    expect(parsed.title).toBe('One');
    expect(parsed.sections).toEqual([
      { heading: '', level: 0, start: 0, end: 7 },
      { heading: 'Two', level: 2, start: 7, end: 15 },
      { heading: 'One', level: 1, start: 15, end: 21 },
    ]);
    expect(parsed.text).toBe('intro\n\nTwo\n\nx\n\nOne\n\ny');
  });

  it('decodes named and numeric character references', () => {
    expect(parseHtml('<p>&amp;&lt;&eacute;&#233;&#xE9;&#x1F600;&nbsp;&unknown; AT&T</p>').text).toBe(
      '&<ééé😀 &unknown; AT&T',
    );
  });

  it("does not take an <svg> icon's <title> for the page title", () => {
    const parsed = parseHtml('<svg><title>icon</title><path d="M0"/></svg><h1>Real</h1><p>x</p>');
    expect(parsed.title).toBe('Real');
    expect(parsed.text).toBe('Real\n\nx');
  });

  it('leaves names of Object.prototype (&constructor;, &__proto__;) as written', () => {
    const refs = ['&constructor;', '&toString;', '&hasOwnProperty;', '&valueOf;', '&__proto__;'];
    expect(parseHtml(`<p>a ${refs.join(' ')} &amp; b</p>`).text).toBe(`a ${refs.join(' ')} & b`);
  });

  it('reads <title> inside <head> but no other head content; unclosed and misnested tags do not lose text', () => {
    const parsed = parseHtml(
      '<html><head><title>T</title><meta name="x"><link rel="y"></head><body><div><b><i>one</b> two<p>three',
    );
    expect(parsed.title).toBe('T');
    expect(parsed.text).toBe('one two\n\nthree');
  });
});

describe('Markdown reader', () => {
  it('strips inline syntax but keeps link text, alt text and literal code', () => {
    expect(
      parseMarkdown(
        '**b** _i_ [t](http://x "y") ![alt](a.png) `a*b*` snake_case_name \\*lit\\* [r][d]\n\n[d]: /x',
      ).text,
    ).toBe('b i t alt a*b* snake_case_name *lit* r');
  });

  it('keeps code blocks verbatim (fenced, indented, inside list items) without their info string', () => {
    const md =
      '# T\n\n```ts\nconst a_b = 1; // <b>\n```\n\n    indented()\n\n- item\n\n  ```rust\n  fn main() {}\n  ```\n';
    expect(parseMarkdown(md).text).toBe('T\n\nconst a_b = 1; // <b>\n\nindented()\n\n- item\n\nfn main() {}');
  });

  it("leaves out mdBook's include directives in code blocks (a path the built book replaces), keeps the code", () => {
    const { text } = parseMarkdown(
      [
        '# Guessing',
        '',
        '```rust',
        '{{#rustdoc_include ../listings/ch02-guessing-game-tutorial/listing-02-01/src/main.rs:print}}',
        '```',
        '',
        '```console',
        '{{#include ../listings/ch02/no-listing-04/output.txt}}',
        'let x = 5; // {{#include not-a-directive-line}}',
        '```',
        '',
        'Text {{#include kept.md}} in prose.',
      ].join('\n'),
    );
    expect(text).toBe(
      'Guessing\n\nlet x = 5; // {{#include not-a-directive-line}}\n\nText {{#include kept.md}} in prose.',
    );
  });

  it('drops HTML comments and <script>/<style> blocks, keeps the text of other raw HTML', () => {
    const md =
      '<script setup>\nimport X from "x"\n</script>\n\n# Title\n\n<!-- ## not a heading -->\n\n' +
      '<div class="tip">\n\nTip <kbd>Ctrl</kbd> text<!-- inline -->.\n\n</div>\n\n<style>\n.a { color: red }\n</style>\n';
    const parsed = parseMarkdown(md);
    expect(parsed.text).toBe('Title\n\nTip Ctrl text.');
    expect(parsed.sections.map((s) => s.heading)).toEqual(['Title']);
  });

  it('a heading inside a list item still opens a section; nested lists keep their indentation', () => {
    const parsed = parseMarkdown('- a\n  - b\n- c\n\n- x\n\n  ### Inner\n\n  text\n');
    expect(parsed.sections.map((s) => [s.heading, s.level])).toEqual([
      ['', 0],
      ['Inner', 3],
    ]);
    // One loose list (a blank line between two of its items): each item is a paragraph.
    expect(parsed.text).toBe('- a\n  - b\n\n- c\n\n- x\n\nInner\n\ntext');
    expect(parseMarkdown('- a\n  - b\n- c\n').text).toBe('- a\n  - b\n- c');
  });

  it('skips front matter, link definitions and table delimiter rows; keeps quotes and ordered lists', () => {
    const md =
      '---\ntitle: x\n---\n> quoted\n\n1. one\n2) two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[r]: http://x\n';
    const parsed = parseMarkdown(md);
    // "1." and "2)" are two lists in CommonMark (another delimiter starts a new list).
    expect(parsed.text).toBe('quoted\n\n1. one\n\n2. two\n\na | b\n1 | 2');
    expect(parsed.title).toBeUndefined();
  });

  it('joins soft line breaks with a space but keeps hard breaks, list items and table rows on their own lines', () => {
    expect(parseMarkdown('one\ntwo  \nthree\\\nfour\n- a\n- b\n').text).toBe(
      'one two\nthree\nfour\n\n- a\n- b',
    );
  });

  it('reads closing hashes; an empty heading only ends the paragraph', () => {
    const parsed = parseMarkdown('## Title ##\ntext\n#\nmore');
    expect(parsed.sections.map((s) => [s.heading, s.level])).toEqual([['Title', 2]]);
    expect(parsed.text).toBe('Title\n\ntext\n\nmore');
  });
});

describe('hostile lines (linear time; the old readers took minutes)', () => {
  it('reads 200,000 "[" on one Markdown line (the old inline stripping: ~75 s)', () => {
    const parsed = parseMarkdown('# T\n\n' + '['.repeat(200_000));
    expect(parsed.text).toBe('T\n\n' + '['.repeat(200_000));
  }, 20_000);

  it('reads 1 MB of " a<b>" (the old text collector: 34 s) and 200,000 unclosed <div>s', () => {
    expect(parseHtml(' a<b>'.repeat(200_000)).text).toHaveLength(399_999);
    expect(parseHtml('<div>x'.repeat(200_000)).text).toHaveLength(599_998);
  }, 20_000);
});
