// Where a chunk sits in its document: the path document › heading › subheading. A reader of a long manual needs it
// to know what a passage is about, and the ranking uses it as a field of its own (a chunk under "Writable Computed"
// in the page "Computed Properties" is about computed properties even where its text never says so).
import { cleanHeadingText } from '../text/index.ts';
import type { ChunkRecord, DocumentRecord, SectionRecord } from '../types.ts';

/**
 * VitePress/Pandoc heading ids ("Basic Example {#basic-example}"), stray marks and break tags are markup, not
 * words of the heading. Markdown is cleaned as it is parsed; this also cleans what libraries stored before that.
 */
export function cleanHeading(heading: string): string {
  return cleanHeadingText(heading);
}

/**
 * The name a .jsonl line without a title is shown by ("passages.jsonl line 12", from its source "passages.jsonl#12";
 * parse/jsonl.ts). It says where the passage sits in its file, not what it is about: it stays the first part of the
 * passage's path (shown, and a source of the passage's concepts as any title), but it is no heading words of the
 * BM25F field (headingField): there it put "line" and a number into the heading field of every such passage (6,978
 * MuSiQue passages made "line" a common heading word of a mixed library, and the Node docs' Readline pages lost their
 * weight in it).
 */
export function lineLabel(sourceName: string | undefined): string | undefined {
  const m = sourceName === undefined ? null : /^(.*)#(\d+)$/.exec(sourceName);
  return m ? `${m[1]} line ${m[2]}` : undefined;
}

/**
 * The heading path as the BM25F heading field reads it: the path without its first part where that is the
 * document's line label (`pathLabel`, set by withSectionPaths).
 */
export function headingField(chunk: { path?: readonly string[]; pathLabel?: boolean }): readonly string[] {
  const path = chunk.path ?? [];
  return chunk.pathLabel ? path.slice(1) : path;
}

/**
 * Heading path of every section of one document, by section index: the document title, then the headings of the
 * enclosing sections (lower level numbers) down to the section's own heading. The title is left out where the
 * first heading repeats it, and empty headings are skipped.
 */
export function sectionPaths(
  title: string,
  sections: readonly Pick<SectionRecord, 'index' | 'level' | 'heading'>[],
): Map<number, string[]> {
  const docTitle = cleanHeading(title);
  const out = new Map<number, string[]>();
  // Open headings by level (1–6); a heading closes every open heading of its level and deeper.
  const open: Array<string | undefined> = [];
  for (const s of [...sections].sort((a, b) => a.index - b.index)) {
    const heading = cleanHeading(s.heading);
    if (s.level >= 1) {
      open.length = s.level - 1;
      open[s.level - 1] = heading || undefined;
    }
    const headings = open.filter((h): h is string => h !== undefined);
    const path = docTitle && headings[0] !== docTitle ? [docTitle, ...headings] : headings;
    out.set(s.index, path);
  }
  return out;
}

/**
 * Every chunk with its heading path (see sectionPaths), for the retrieval input. Where a document's title is its
 * .jsonl line label (lineLabel; `sourceName` given) and begins the path, the chunk has `pathLabel` (see
 * headingField).
 */
export function withSectionPaths<C extends Pick<ChunkRecord, 'docId' | 'sectionIndex'>>(
  documents: readonly (Pick<DocumentRecord, 'id' | 'title'> & { sourceName?: string })[],
  sections: readonly Pick<SectionRecord, 'docId' | 'index' | 'level' | 'heading'>[],
  chunks: readonly C[],
): Array<C & { path: string[]; pathLabel?: boolean }> {
  const byDoc = new Map<string, Array<Pick<SectionRecord, 'index' | 'level' | 'heading'>>>();
  for (const s of sections) {
    let list = byDoc.get(s.docId);
    if (!list) byDoc.set(s.docId, (list = []));
    list.push(s);
  }
  const paths = new Map<string, Map<number, string[]>>();
  const titleOf = new Map(documents.map((d) => [d.id, cleanHeading(d.title)]));
  const labelOf = new Map<string, string>();
  for (const d of documents) {
    paths.set(d.id, sectionPaths(d.title, byDoc.get(d.id) ?? []));
    if (d.title === lineLabel(d.sourceName)) labelOf.set(d.id, cleanHeading(d.title));
  }
  return chunks.map((c) => {
    // A chunk whose section is unknown still has its document's title as the path.
    const title = titleOf.get(c.docId);
    const path = paths.get(c.docId)?.get(c.sectionIndex) ?? (title ? [title] : []);
    const label = labelOf.get(c.docId);
    return label !== undefined && label !== '' && path[0] === label
      ? { ...c, path, pathLabel: true }
      : { ...c, path };
  });
}
