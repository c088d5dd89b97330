// What a drop will store, projected from its queue (src/services/ingest/dropProjection.ts): the bench's bytes per
// chunk until the drop has settled a mebibyte of files, its own after; announced files only while files are queued.
import { describe, expect, it } from 'vitest';
import {
  BENCH_BYTES_PER_CHUNK,
  CALIBRATED_BYTES,
  DropProjection,
} from '../../../../src/services/ingest/dropProjection.ts';

const MiB = 1 << 20;

describe('DropProjection', () => {
  it("projects the queue at the scale corpus's bytes per chunk before the drop has measured its own", () => {
    const p = new DropProjection();
    // 100 MiB of queued text: about the 102,310 chunks the 100 MiB scale corpus stores.
    expect(p.project(0, { waiting: 100 * MiB, announced: 0 })).toBe(
      Math.round((100 * MiB) / BENCH_BYTES_PER_CHUNK),
    );
    expect(p.project(0, { waiting: 100 * MiB, announced: 0 })).toBeGreaterThan(100_000);
    p.fileSettled(CALIBRATED_BYTES - 1);
    p.chunksStored(10);
    expect(p.project(500, { waiting: 1036, announced: 0 })).toBe(501);
  });

  it("uses the drop's own bytes per chunk once it has settled a mebibyte (PDFs: many bytes a chunk)", () => {
    const p = new DropProjection();
    // 2 MiB of PDFs gave 200 chunks: 10,486 bytes a chunk, ten times the text's.
    p.fileSettled(2 * MiB);
    p.chunksStored(200);
    expect(p.storedChunks).toBe(200);
    expect(p.project(200, { waiting: 100 * MiB, announced: 0 })).toBe(200 + 10_000);
  });

  it('projects nothing from a folder dropped again (every file a duplicate: bytes, no chunk)', () => {
    const p = new DropProjection();
    p.fileSettled(3 * MiB);
    expect(p.project(8_000, { waiting: 50 * MiB, announced: 0 })).toBe(8_000);
  });

  it('counts announced files only while files are queued, and nothing once nothing waits', () => {
    const p = new DropProjection();
    const at = (waiting: number, announced: number) => p.project(100, { waiting, announced });
    expect(at(1036, 1036 * 10)).toBe(111);
    // Announced alone: a page closed before their bytes were stored; they must not keep the library on pages.
    expect(at(0, 1036 * 10_000)).toBeUndefined();
    expect(at(0, 0)).toBeUndefined();
  });
});
