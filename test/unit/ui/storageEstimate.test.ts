// Before a drop is queued: the space it needs, estimated from file sizes, against what the browser offers.
import { describe, expect, it } from 'vitest';
import {
  checkSpace,
  estimateDrop,
  LEXICAL_BYTES_PER_TEXT_BYTE,
  STORED_BYTES_PER_TEXT_BYTE,
} from '../../../src/ui/estimates/storageEstimate.ts';

const MB = 1024 * 1024;

describe('storage estimate', () => {
  it('counts text files whole and PDF/DOCX as a fraction, plus the queued bytes themselves', () => {
    const e = estimateDrop([
      { name: 'notes/a.md', size: MB },
      { name: 'report.pdf', size: 10 * MB },
    ]);
    expect(e.files).toBe(2);
    expect(e.fileBytes).toBe(11 * MB);
    // A PDF's text: 0.3 of its bytes (measured at most 0.27, test/bench/text-per-byte.ts).
    expect(e.textBytes).toBeCloseTo(MB + 3 * MB, 0);
    expect(e.fullBytes).toBe(Math.round(11 * MB + 4 * MB * STORED_BYTES_PER_TEXT_BYTE));
    expect(e.lexicalBytes).toBe(Math.round(11 * MB + 4 * MB * LEXICAL_BYTES_PER_TEXT_BYTE));
  });

  it('says nothing when the drop fits or the browser does not tell', () => {
    const e = estimateDrop([{ name: 'a.txt', size: 100_000 }]);
    expect(checkSpace(e, { usage: 0, quota: 1024 * MB })).toBeNull();
    expect(checkSpace(e, null)).toBeNull();
  });

  it('names what is needed and what is offered, and whether the lexical layer alone fits', () => {
    const e = estimateDrop([{ name: 'corpus.jsonl', size: MB }]);
    expect(checkSpace(e, { usage: 40 * MB, quota: 100 * MB })).toBeNull();
    const short = checkSpace(e, { usage: 85 * MB, quota: 100 * MB });
    expect(short?.available).toBe(15 * MB);
    expect(short?.lexicalFits).toBe(true);
    expect(short?.message).toMatch(
      /^This file needs about 20 MB of storage to index; this browser offers 15 MB here/,
    );
    expect(short?.message).toMatch(/private window gives less/);
    expect(short?.message).toMatch(/Without sentence vectors .* it needs about 9\.0 MB, which fits\./);

    const many = estimateDrop([
      { name: 'a.txt', size: 2 * MB },
      { name: 'b.txt', size: 2 * MB },
    ]);
    const tiny = checkSpace(many, { usage: 0, quota: 10 * MB });
    expect(tiny?.lexicalFits).toBe(false);
    expect(tiny?.message).toMatch(/^These 2 files need about/);
    expect(tiny?.message).toMatch(/Even without sentence vectors they need about 36 MB\./);
  });
});
