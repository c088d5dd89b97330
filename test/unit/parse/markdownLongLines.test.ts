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
