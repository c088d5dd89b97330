// gzip for bundle parts, with the platform's CompressionStream (browsers, workers and Node ≥ 18 alike).
// Text parts (documents, chunks, sentences, graph) shrink 3–5×; that is what keeps a MuSiQue bundle small.

async function collect(stream: ReadableStream<Uint8Array>, expectedLength?: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    // A damaged or hostile part must not inflate without bound.
    if (expectedLength !== undefined && total > expectedLength) {
      await reader.cancel();
      throw new Error(`inflates beyond its declared ${expectedLength} bytes`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
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

export async function gunzip(data: Uint8Array, expectedLength: number): Promise<Uint8Array> {
  return collect(
    streamOf(data).pipeThrough(new DecompressionStream('gzip') as unknown as BytePair),
    expectedLength,
  );
}
