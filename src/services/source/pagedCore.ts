// The core chunks of a library answered from its paged index, as the KG build reads them (pagedSource.ts, buildOrder).
// The core chunks' records are read for their ids only. Their texts are read again a batch at a time as the build
// sends them (buildDistilled's `texts`), and the pages let go of what they decoded after each read. Holding the
// core's records took 232 MB of heap at κ 0.8 of 100 MiB of text (docs/results/kg-pages.md); the pages' decoded
// groups would otherwise stay for the KG worker's life.
import type { DistillChunkInput } from '../../core/atomic/index.ts';
import { coreCount } from '../../core/kg/index.ts';
import type { PagedLibrary } from '../../core/paged/index.ts';
import type { BuildOrder } from './librarySource.ts';

/** Core chunks' records read at once for their ids (in the pages' order), then let go. */
const CORE_SLICE = 4096;

/** Core chunks and their texts from `library`'s pages, `order` being the build order (degreeRanks.ts, buildOrder). */
export function pagedCore(
  library: PagedLibrary,
  order: Uint32Array,
): Required<Pick<BuildOrder, 'core' | 'texts'>> {
  // The place in the pages of each core chunk named so far, for reading its text.
  const placeOf = new Map<string, number>();
  // One read of the pages at a time: forget() between reads must not drop what another read is using.
  let reading: Promise<unknown> = Promise.resolve();
  const serial = <T>(read: () => Promise<T>): Promise<T> => {
    const done = reading.then(read, read);
    reading = done.catch(() => undefined);
    return done;
  };
  return {
    core: (kappa) =>
      serial(async () => {
        const places = Array.from(order.subarray(0, coreCount(order.length, kappa)));
        // In the pages' order, so that each record group is decoded once before it is let go.
        const ascending = [...places].sort((a, b) => a - b);
        const named = new Map<number, DistillChunkInput>();
        for (let i = 0; i < ascending.length; i += CORE_SLICE) {
          const slice = ascending.slice(i, i + CORE_SLICE);
          const records = await library.reader.recordsAt(slice);
          library.reader.forget();
          records.forEach((r, j) => named.set(slice[j], { id: r.id, docId: r.docId }));
        }
        return places.map((k) => {
          const chunk = named.get(k)!;
          placeOf.set(chunk.id, k);
          return chunk;
        });
      }),
    texts: (chunks) =>
      serial(async () => {
        const places = chunks.map((c) => {
          const k = placeOf.get(c.id);
          if (k === undefined) throw new Error(`KG: chunk ${c.id} is not among the core chunks read`);
          return k;
        });
        const records = await library.reader.recordsAt(places);
        library.reader.forget();
        return records.map((r) => r.text);
      }),
  };
}
