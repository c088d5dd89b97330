// A ranked chunk as the page shows it, for every question mode of the query service: offsets moved from the chunk
// (or its excerpt) into the source document, so a sentence opens the viewer at the right place.
import { pageRange } from '../../core/pages.ts';
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import { cleanHeading, type RetrievedChunk } from '../../core/retrieval/index.ts';
import type { Evidence } from './queryProtocol.ts';

/**
 * A hit as the page shows it, whichever source it came from (src/services/source), with the fields the page shows.
 * `chunkStart`: the chunk's offset in its document; `title`: what the card names the document; `pageStarts`: the
 * document's page starts (PDF), which give an excerpt its own pages (the chunk's are used without them).
 */
export function shownEvidence(
  hit: RetrievedChunk,
  chunkStart: number,
  title: string,
  pageStarts?: readonly number[],
): Evidence {
  const start = chunkStart + (hit.excerptStart ?? 0);
  const pages = pageStarts?.length
    ? pageRange(pageStarts, start, start + hit.text.length)
    : hit.pageStart !== undefined
      ? { pageStart: hit.pageStart, pageEnd: hit.pageEnd ?? hit.pageStart }
      : undefined;
  const p = hit.provenance as Evidence['provenance'];
  return {
    chunkId: hit.chunkId,
    docId: hit.docId,
    docTitle: cleanHeading(title),
    score: hit.score,
    text: hit.text,
    tokens: hit.tokens,
    chunkStart: start,
    path: [...(hit.path ?? [])],
    excerpt: hit.excerptStart !== undefined,
    ...(hit.heading ? { heading: hit.heading } : {}),
    ...pages,
    bestSentences: hit.bestSentences.map((s) => ({
      start: s.start + start,
      end: s.end + start,
      score: s.score,
    })),
    // Only the fields the page shows: provenance objects may carry internal detail that does not clone well.
    provenance: {
      mode: p.mode,
      concepts: p.concepts,
      hop: p.hop,
      entities: p.entities,
      paths: p.paths,
      via: p.via,
    },
  };
}

/** A hit shown from the record of its chunk that a question read (a paged index, or the words' stored chunks). */
export function recordEvidence(hit: RetrievedChunk, record: PagedChunkRecord | undefined): Evidence {
  return shownEvidence(hit, record?.start ?? 0, record?.title ?? hit.docId, record?.pageStarts);
}
