// How much a question's final ranking leans on its words rather than on the concept walk, decided per question.
//
// The walk was made for what G2ConS and HippoRAG answer: short passages about named things, linked through the
// names they share, where a question's second hop is a passage its words never name. In long structured documents
// (a manual's sections, a book's chapters) a question is asked in the document's own vocabulary and the section
// that answers it is the one that uses those words, under a heading that says so; the walk then spreads mass over
// the document's shared vocabulary and only orders what the words leave undecided. Measured with the lexical layer
// (README results): on the Vue docs the words alone give R@5 92.5 where the walk alone gives 76.7; on 2Wiki the walk
// gives 87.8 where the words give 68.5.
//
// So a question is judged by where its words lead: the documents of its best lexical matches. Passages that are
// their own document (an encyclopedia's paragraphs) → the walk; sections of many-section documents → the words.
// The signal is the question's own neighbourhood, not the library's make-up, so a manual's question inside a
// Wikipedia-heavy library is answered as in the manual alone, and a two-hop question about people still gets the
// walk in a library that also holds manuals.
//
// What counts as one document here is what its source says is one: a file, or the passages that share a title. A
// paper's paragraphs given one passage a line under the paper's title ("KAG", "G2ConS › 1 引言") are sections of one
// text, asked in its own vocabulary, and were walked like encyclopedia paragraphs (Chinese prose: default R@2 65.0
// against bm25 75.0); an encyclopedia's passages each have their own title, so they are walked as before.

export interface BlendInput {
  /** The question's best lexical matches (chunk indexes, best first). */
  topChunks: readonly number[];
  /** Number of chunks in the document of chunk k, or under its document's title if more (titleGroupSizes). */
  documentChunks: (chunk: number) => number;
}

/**
 * Per chunk, the chunks of its document or, if more, the chunks whose documents share its document's title (the
 * first element of the heading path): the size of the text a chunk is a part of, as the blend reads it.
 */
export function titleGroupSizes(
  chunks: ReadonlyArray<{ docId: string; path?: readonly string[] }>,
): Uint32Array {
  const perDocument = new Map<string, number>();
  const perTitle = new Map<string, number>();
  for (const c of chunks) {
    perDocument.set(c.docId, (perDocument.get(c.docId) ?? 0) + 1);
    const title = c.path?.[0];
    if (title) perTitle.set(title, (perTitle.get(title) ?? 0) + 1);
  }
  return Uint32Array.from(chunks, (c) => {
    const title = c.path?.[0];
    return Math.max(perDocument.get(c.docId)!, title ? perTitle.get(title)! : 0);
  });
}

export interface BlendOptions {
  /** How many of the best lexical matches are looked at. */
  neighbours: number;
  /** Mean log2(1 + chunks per document) at which the words start to lean in, and where they decide. */
  from: number;
  to: number;
}

/** The words' share for this question in [0, 1] (0 = the walk ranks, 1 = the words rank). */
export function questionBlend(input: BlendInput, options: BlendOptions): number {
  const top = input.topChunks.slice(0, options.neighbours);
  if (top.length === 0) return 0;
  let structure = 0;
  for (const k of top) structure += Math.log2(1 + input.documentChunks(k));
  structure /= top.length;
  const span = options.to - options.from;
  return Math.min(
    1,
    Math.max(0, span > 0 ? (structure - options.from) / span : structure >= options.to ? 1 : 0),
  );
}
