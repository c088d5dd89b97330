// gzip for bundle parts, with the platform's CompressionStream (browsers, workers and Node ≥ 18 alike).
// Text parts (documents, chunks, sentences, graph) shrink 3–5×; that is what keeps a MuSiQue bundle small.
import { concatBytes } from './byteSource.ts';

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (let step = await reader.read(); !step.done; step = await reader.read()) chunks.push(step.value);
  return concatBytes(chunks);
}

/**
 * Inflates into one buffer of the declared size, chunk by chunk, and stops at the first byte past it: a hostile
 * part can make the reader hold at most `cap` bytes (which the reader has already counted against the part's
 * stored length and the bundle's total), never the whole stream and never a second copy of it.
 */
async function inflateInto(stream: ReadableStream<Uint8Array>, cap: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const out = new Uint8Array(cap);
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > cap) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`inflates beyond its declared ${cap} bytes`);
    }
    out.set(value, total);
    total += value.length;
  }
  return total === cap ? out : out.subarray(0, total);
}

function streamOf(data: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(data);
      controller.close();
    },
  });
}

// The lib typings declare the writable side as BufferSource; Uint8Array chunks are what it receives.
type BytePair = ReadableWritablePair<Uint8Array, Uint8Array>;

export async function gzip(data: Uint8Array): Promise<Uint8Array> {
  return collect(streamOf(data).pipeThrough(new CompressionStream('gzip') as unknown as BytePair));
}

/**
 * The stored bytes in slices, each handed over only when the inflater asks for more: a browser's
 * DecompressionStream inflates a whole input chunk at once, so one 1 MB chunk could become 1 GB in a single step.
 * A slice of 16 KB inflates to at most ~17 MB (deflate's ratio is at most 1032:1) before the cap is checked.
 */
function slicedStreamOf(data: Uint8Array, slice = 16 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= data.length) {
          controller.close();
          return;
        }
        controller.enqueue(data.subarray(offset, offset + slice));
        offset += slice;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Inflates a gzip part that declares `expectedLength` bytes; refuses (throws) at the first byte beyond it. */
export async function gunzip(data: Uint8Array, expectedLength: number): Promise<Uint8Array> {
  return inflateInto(
    slicedStreamOf(data).pipeThrough(new DecompressionStream('gzip') as unknown as BytePair),
    expectedLength,
  );
}
