// Assembles a document's plain text from paragraphs and headings while recording sections, so every parser
// (Markdown, HTML, .docx, PDF, .jsonl) produces the same shape: paragraphs separated by one blank line, a heading
// as its own paragraph that opens a section running to the next heading, sections covering the text in order.
import type { ParsedSection } from './types.ts';

export class DocumentBuilder {
  private parts: string[] = [];
  private length = 0;
  private sections: ParsedSection[] = [];
  private firstHeading: { text: string; level: number } | undefined;

  /**
   * Appends a paragraph (internal single line breaks kept; surrounding whitespace trimmed; empty ignored). Returns
   * the offset in the text where the untrimmed paragraph's first character would be (-1 when nothing was added).
   */
  paragraph(text: string): number {
    const trimmed = text.trim();
    if (trimmed.length === 0) return -1;
    if (this.length > 0) this.push('\n\n');
    if (this.sections.length === 0) this.sections.push({ heading: '', level: 0, start: 0, end: 0 });
    const at = this.length - text.indexOf(trimmed);
    this.push(trimmed);
    return at;
  }

  /**
   * Starts a new section with a heading line (level 1–6). An empty heading is ignored. Returns the heading's
   * offset in the text (-1 when nothing was added).
   */
  heading(text: string, level: number): number {
    const heading = text.replace(/\s+/g, ' ').trim();
    if (heading.length === 0) return -1;
    if (this.length > 0) this.push('\n\n');
    const at = this.length;
    this.sections.push({ heading, level: Math.min(6, Math.max(1, level)), start: at, end: 0 });
    this.firstHeading ??= { text: heading, level };
    this.push(heading);
    return at;
  }

  /** Appends text to the heading just written (a heading wrapped over two lines); false if text followed it. */
  extendHeading(more: string): boolean {
    const last = this.sections[this.sections.length - 1];
    if (!last || last.level === 0 || this.length !== last.start + last.heading.length) return false;
    const extra = ' ' + more.replace(/\s+/g, ' ').trim();
    last.heading += extra;
    if (this.firstHeading && this.sections.length === 1) this.firstHeading.text = last.heading;
    this.push(extra);
    return true;
  }

  /** The first top-level heading, else the first heading of any level. */
  titleFromHeadings(): string | undefined {
    const h1 = this.sections.find((s) => s.level === 1);
    return h1?.heading ?? this.firstHeading?.text;
  }

  isEmpty(): boolean {
    return this.length === 0;
  }

  build(): { text: string; sections: ParsedSection[] } {
    const text = this.parts.join('');
    const sections = this.sections.map((s, i) => ({
      ...s,
      end: i + 1 < this.sections.length ? this.sections[i + 1].start : text.length,
    }));
    return { text, sections };
  }

  private push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }
}

/** Section list for text without headings: one implicit section over all of it. */
export function wholeTextSection(text: string): ParsedSection[] {
  return [{ heading: '', level: 0, start: 0, end: text.length }];
}
