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
 * parse/jsonl.ts). It says where the passage sits in its file, not what it is about, so it is no heading of the
 * passage: in a path it would put "line" and a number into the heading field of every such passage (6,978 MuSiQue
 * passages made "line" a common heading word of a mixed library, and the Node docs' Readline pages lost their
 * weight in it).
 */
export function lineLabel(sourceName: string | undefined): string | undefined {
  const m = sourceName === undefined ? null : /^(.*)#(\d+)$/.exec(sourceName);
  return m ? `${m[1]} line ${m[2]}` : undefined;
}

/** A document's title as the first part of its heading paths: none where the title is only its line label. */
function pathTitle(document: Pick<DocumentRecord, 'title'> & { sourceName?: string }): string {
  return document.title === lineLabel(document.sourceName) ? '' : document.title;
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
 * Every chunk with its heading path (see sectionPaths), for the retrieval input. A document whose title is its .jsonl
 * line label (lineLabel; `sourceName` given) has no title in its paths.
 */
export function withSectionPaths<C extends Pick<ChunkRecord, 'docId' | 'sectionIndex'>>(
  documents: readonly (Pick<DocumentRecord, 'id' | 'title'> & { sourceName?: string })[],
  sections: readonly Pick<SectionRecord, 'docId' | 'index' | 'level' | 'heading'>[],
  chunks: readonly C[],
): Array<C & { path: string[] }> {
  const byDoc = new Map<string, Array<Pick<SectionRecord, 'index' | 'level' | 'heading'>>>();
  for (const s of sections) {
    let list = byDoc.get(s.docId);
    if (!list) byDoc.set(s.docId, (list = []));
    list.push(s);
  }
  const paths = new Map<string, Map<number, string[]>>();
  const titleOf = new Map(documents.map((d) => [d.id, cleanHeading(pathTitle(d))]));
  for (const d of documents) paths.set(d.id, sectionPaths(pathTitle(d), byDoc.get(d.id) ?? []));
  return chunks.map((c) => {
    // A chunk whose section is unknown still has its document's title as the path.
    const title = titleOf.get(c.docId);
    return { ...c, path: paths.get(c.docId)?.get(c.sectionIndex) ?? (title ? [title] : []) };
  });
}
