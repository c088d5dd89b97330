// Headings of a tagged PDF (issue 45): a browser's "Save as PDF" and `chromium --print-to-pdf` write a structure
// tree whose H1–H6 elements are the page's headings, whatever their size — Chromium prints an h4 at the body's size,
// in bold, which the font sizes alone cannot tell from text. The fixture is a real print by headless Chromium 156.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../../src/core/parse/index.ts';
import { headingContent } from '../../../src/core/parse/pdf.ts';
import { layoutPdf, type PdfLine } from '../../../src/core/parse/pdfLayout.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(
    readFileSync(fileURLToPath(new URL(`../../fixtures/browser-print/${name}`, import.meta.url))),
  );

const headings = (doc: { sections: { heading: string; level: number }[] }) =>
  doc.sections.filter((s) => s.level > 0).map((s) => [s.heading, s.level]);

describe('tagged PDF headings', () => {
  it("reads Chromium's tagged print: h4 at body size, a heading in code font, a wrapped h2", async () => {
    const [doc] = (await parseFile('headings.pdf', fixture('headings.pdf'))).documents;
    expect(headings(doc)).toEqual([
      ['Keyboard shortcuts', 1],
      ['Local shortcuts in the application menu', 2],
      ['The accelerator property', 3],
      ['Platform differences', 4],
      ['Disabling a shortcut', 4],
      [
        'Global shortcuts that keep listening while the window is hidden or another application is in front',
        2,
      ],
    ]);
    // A bold paragraph standing alone is tagged P, not H: it stays text of its section.
    const last = doc.sections.at(-1)!;
    expect(doc.text.slice(last.start, last.end)).toContain('Remember to unregister\n\nEvery registration');
    // The h4's paragraph is in the h4's section, not the h3's.
    const platform = doc.sections.find((s) => s.heading === 'Platform differences')!;
    expect(doc.text.slice(platform.start, platform.end)).toContain(
      'the Command key takes the place of Control',
    );
  });

  it('maps marked content to the heading element it lies in, through nested roles and a bare H', () => {
    const content = (id: string) => ({ type: 'content', id });
    const tree = {
      role: 'Root',
      children: [
        {
          role: 'Document',
          children: [
            { role: 'H2', children: [{ role: 'Code', children: [content('a')] }, content('b')] },
            { role: 'P', children: [content('c')] },
            {
              role: 'Sect',
              children: [{ role: 'Sect', children: [{ role: 'H', children: [content('d')] }] }],
            },
            { role: 'H1', children: [content('e')] },
          ],
        },
      ],
    };
    const map = headingContent(tree);
    expect(map.get('a')).toEqual(map.get('b'));
    expect(map.get('a')?.level).toBe(2);
    expect(map.has('c')).toBe(false);
    expect(map.get('d')?.level).toBe(2);
    expect(map.get('e')?.level).toBe(1);
    expect(new Set([map.get('a')?.element, map.get('d')?.element, map.get('e')?.element]).size).toBe(3);
    expect(headingContent(null).size).toBe(0);
  });

  it("walks at most a bounded number of a hostile tree's nodes", () => {
    const children = Array.from({ length: 120_000 }, (_, i) => ({ type: 'content', id: `c${i}` }));
    const map = headingContent({ role: 'Root', children: [{ role: 'H1', children }] });
    expect(map.size).toBeGreaterThan(0);
    expect(map.size).toBeLessThan(children.length);
  });

  it('trusts the tags over the sizes, and a tag over a paragraph-long run is not a heading', () => {
    const line = (text: string, y: number, size: number, element?: number): PdfLine => ({
      text,
      x: 72,
      y,
      size,
      mono: false,
      ...(element === undefined ? {} : { tag: { level: 2, element } }),
    });
    const page = [
      line('Installing the runtime', 700, 11, 0),
      line('A large pull quote the tags call a paragraph', 680, 20),
      line('Body text that explains the step in full.', 660, 11),
      ...Array.from({ length: 6 }, (_, i) => line(`Mistagged paragraph line ${i + 1}`, 640 - i * 16, 11, 1)),
    ];
    const layout = layoutPdf([page]);
    expect(layout.sections.filter((s) => s.level > 0).map((s) => s.heading)).toEqual([
      'Installing the runtime',
    ]);
    expect(layout.text).toContain('Mistagged paragraph line 1 Mistagged paragraph line 2');

    // Tags that name no heading but a mistagged paragraph: the sizes decide, as for an untagged PDF.
    const onlyMistagged = layoutPdf([page.filter((l) => !l.text.startsWith('Installing'))]);
    expect(onlyMistagged.sections.filter((s) => s.level > 0).map((s) => s.heading)).toEqual([
      'A large pull quote the tags call a paragraph',
    ]);
  });
});
