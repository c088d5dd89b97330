import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../src/core/parse/markdown.ts';

describe('Markdown with a generated, very long line', () => {
  it('reads links normally in ordinary text', () => {
    const { text } = parseMarkdown('# Guide\n\nSee [the docs](https://example.org) and ![a chart](c.png).\n');
    expect(text).toContain('See the docs and a chart.');
  });

  it('keeps link and image syntax as written when a line is over 20,000 characters', () => {
    const long = 'x '.repeat(12_000);
    const { text, sections } = parseMarkdown(
      `# Data\n\n[kept](https://example.org) ${long}\n\n## Next\n\nmore\n`,
    );
    expect(text).toContain('[kept](https://example.org)');
    // Headings still open sections.
    expect(sections.map((s) => s.heading)).toEqual(['Data', 'Next']);
  });

  it('parses a 1 MB line of "![" as text, bracket for bracket', () => {
    const { text } = parseMarkdown('!['.repeat(500_000));
    expect(text.length).toBe(1_000_000);
  });
});

describe('Markdown with a generated, very long paragraph (issue 23)', () => {
  const wrapped = (line: string, lines: number): string => Array(lines).fill(line).join('\n');

  it('keeps link syntax as written when short lines make a paragraph over 20,000 characters', () => {
    const filler = wrapped('word '.repeat(20), 250); // 25,000 characters, no blank line
    const { text } = parseMarkdown(`# Data\n\n[kept](https://example.org)\n${filler}\n\n## Next\n\nmore\n`);
    expect(text).toContain('[kept](https://example.org)');
  });

  it('still reads links in a document whose long text is split into ordinary paragraphs', () => {
    const paragraphs = Array(250).fill('word '.repeat(20)).join('\n\n');
    const { text } = parseMarkdown(`# Data\n\n[read](https://example.org)\n\n${paragraphs}\n`);
    expect(text).toContain('read');
    expect(text).not.toContain('[read]');
  });

  it('parses 1 MB of "[" in 19,998-character lines as text, bracket for bracket', () => {
    const source = wrapped('['.repeat(19_998), 50);
    const { text } = parseMarkdown(source);
    expect(text.replace(/\s/g, '').length).toBe(19_998 * 50);
  });
});
