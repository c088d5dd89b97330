import { describe, expect, it } from 'vitest';
import { decodeEntities } from '../../../src/core/parse/entities.ts';
import { parseHtml } from '../../../src/core/parse/html.ts';
import { parseMarkdown, stripInline } from '../../../src/core/parse/markdown.ts';

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
    expect(decodeEntities('&amp;&lt;&eacute;&#233;&#xE9;&#x1F600;&nbsp;&unknown; AT&T')).toBe(
      '&<ééé😀 &unknown; AT&T',
    );
  });
});

describe('Markdown reader', () => {
  it('strips inline syntax but keeps link text, alt text and literal code', () => {
    expect(stripInline('**b** _i_ [t](http://x "y") ![alt](a.png) `a*b*` snake_case_name \\*lit\\*')).toBe(
      'b i t alt a*b* snake_case_name *lit*',
    );
  });

  it('skips front matter, link definitions and table delimiter rows; keeps quotes and ordered lists', () => {
    const md =
      '---\ntitle: x\n---\n> quoted\n\n1. one\n2) two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[r]: http://x\n';
    const parsed = parseMarkdown(md);
    expect(parsed.text).toBe('quoted\n\n1. one\n2. two\n\na | b\n1 | 2');
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
