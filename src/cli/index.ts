// `npm run cli -- index <files or folders…> --out <x.bundle> [--into <existing.bundle>]`: indexes documents in
// Node with the app's own code (prepareFile → sentence embeddings → the engine factory the browser uses) and
// writes one bundle that the browser imports or opens by URL, and that `ask` answers from.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import {
  mergeSnapshots,
  snapshotCounts,
  writeSnapshotBundle,
  type BundlePart,
  type EmbedderInfo,
  type IndexSnapshot,
} from '../core/bundle/index.ts';
import { embedDocuments } from '../core/pipeline/index.ts';
import type { Embedder, FileError, PreparedDocument } from '../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import { PARSE_TIMEOUT_MS } from '../core/parse/index.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { buildEngine, retrievalInput, termAnalyzer } from '../services/library/engine.ts';
import {
  DEFAULT_BLOCK_SIZE,
  LARGE_BLOCK_SIZE,
  DEFAULT_GROUPS,
  pagesParts,
  writePagedIndex,
  type GroupSizes,
} from '../core/paged/index.ts';
import { cleanHeading, RetrievalEngine, type RetrievalParams } from '../core/retrieval/index.ts';
import { themesPart } from '../core/themes/index.ts';
import { themesOfGraph } from '../services/themes/themesOf.ts';
import { formatBytes, readBundleFile, writeBundleFile } from './bundleIo.ts';
import { createEmbedderFromSpec, specTakesKey } from './embedders.ts';
import { EMBEDDINGS_KEY_ENV, LLM_KEY_ENV, readApiKey } from './keys.ts';
import { withCoreLayers } from './indexKg.ts';
import { DEFAULT_KAPPA } from '../core/kg/index.ts';
import { DEFAULT_LLM_SETTINGS, LlmClient } from '../core/llm/index.ts';
import { cachedEmbedder } from './embeddingCache.ts';
import { throttled } from './embedProgress.ts';
import {
  DEFAULT_BATCH,
  DEFAULT_CONCURRENCY,
  endpointRequestOptions,
  fillFromService,
} from './serviceFill.ts';
import { readInputFile, walkInputs } from './fileWalker.ts';
import { logOcrProgress, ocrLanguageFlag, parseTimeoutFlag, ThreadParser } from './threadParser.ts';
import { StreamBuildEmpty, streamBuild, type StreamBuildOptions } from './streamIndex.ts';

/** The largest --block-size: a block is read, hashed and held whole, and 1 MiB is past any size worth measuring. */
const MAX_BLOCK_FLAG = 1024 * 1024;
/** The largest size --group-sizes takes: a group is read and decoded whole, so past this it is a section. */
const MAX_GROUP_FLAG = 65536;
const GROUP_NAMES = Object.keys(DEFAULT_GROUPS) as Array<keyof GroupSizes>;
const DEFAULT_GROUPS_FLAG = GROUP_NAMES.map((k) => `${k}=${DEFAULT_GROUPS[k]}`).join(',');

/**
 * `--group-sizes records=4,terms=64`: the sizes named, the others the default; undefined for a malformed value
 * (an unknown name, a repeated one, a size that is not a whole number from 1 to MAX_GROUP_FLAG).
 */
export function parseGroupSizes(flag: string): GroupSizes | undefined {
  const sizes: GroupSizes = { ...DEFAULT_GROUPS };
  const seen = new Set<string>();
  for (const item of flag.split(',')) {
    const m = /^\s*(\w+)\s*=\s*(\d+)\s*$/.exec(item);
    if (!m || !(GROUP_NAMES as string[]).includes(m[1]) || seen.has(m[1])) return undefined;
    const size = Number(m[2]);
    if (!(Number.isSafeInteger(size) && size >= 1 && size <= MAX_GROUP_FLAG)) return undefined;
    seen.add(m[1]);
    sizes[m[1] as keyof GroupSizes] = size;
  }
  return sizes;
}

const USAGE = `usage: npm run cli -- index <files or folders…> --out <x.bundle> [options]
  --into <existing.bundle>   add the documents to an existing bundle (same embedder)
  --embedder <spec>          use (default), hf:<folder or URL>, openai:<baseUrl>#<model>, or none (lexical only)
  --embed-key-file <file>    the key of an openai: embedder (else env CONCEPTRAG_EMBEDDINGS_API_KEY)
  --vectors i8|f32           vector storage in the bundle (default i8: int8 with a per-vector scale)
  --graph                    store the whole concept graph (large: ~150 MB for MuSiQue, see FORMAT.md)
  --no-graph-mask            store no graph at all. By default a bundle carries its concept table (each chunk's
                             keyphrases, ~3 MB for MuSiQue), so opening it does not choose them again, and with
                             vectors also the θsem keep-mask of the edges (~0.75 MB), so it skips the edge cosines
  --pages                    also write the paged index, read by ranges (with --embedder none): \`ask\`, a dropped
                             bundle and ?bundle=<url> then answer by reading only the blocks a question
                             needs, so a bundle larger than a tab's memory still answers (FORMAT.md, "Pages")
  --stream                   build the library read by ranges one file at a time (implies --pages, needs
                             --embedder none, no --into): memory follows the index's arrays, not the text
                             (1 GB of text fits in a few GB). The bundle holds the paged index only: \`ask\` and the app
                             read it by ranges; importing it, \`ask --whole\` and \`info\` refuse it by name.
                             Progress (files, MB, rate, time left) goes to stderr; temporary files go beside --out
  --block-size <bytes>       with --pages or --stream: the bytes a block of the pages holds, each checked by its
                             SHA-256 (default ${DEFAULT_BLOCK_SIZE}, ${LARGE_BLOCK_SIZE} for a library too large to keep
                             its lists in its rows, its open, records, postings, lists, rows and degrees then in
                             blocks of their own (64 KiB, 1 KiB, 1 KiB, 128 B, 128 B, 4 KiB), as a small
                             library's open, terms, postings, concepts, rows and degrees are (64 KiB, 256 B,
                             256 B, 256 B, 64 KiB, 4 KiB); given, every
                             section in it; 512 to ${MAX_BLOCK_FLAG}). Smaller blocks: a question reads
                             fewer bytes, the bundle holds 16 bytes of hash a block (docs/results/question-bytes.md)
  --group-sizes <k=n,…>      with --pages or --stream: items per gzip'd group of the grouped sections, any of
                             records, terms, concepts, rows (default ${DEFAULT_GROUPS_FLAG}; 1 to ${MAX_GROUP_FLAG}).
                             Smaller groups: a question reads fewer bytes, the bundle compresses worse
  --kg                       also build the core KG (modes kg, hybrid; logical searches it first) into the bundle:
                             one extraction call per core chunk to --llm-base-url (--llm-model, key from
                             --llm-key-file or env ${LLM_KEY_ENV}), the top --kappa of the chunks by PageRank
                             (default ${DEFAULT_KAPPA}); with --pages, ask reads it whole beside the paged index
  --atomic                   also write PIKE-RAG's atomic questions of the same core chunks (mode atomic;
                             decompose searches them first), from the same endpoint: with --kg, one call a
                             chunk for both
  --ocr-language <l>         the language of scanned pages and pictures: auto (default: from the document's
                             text, else its first page), eng (English) or chi_sim (Chinese)
  --parse-timeout <seconds>  the time one file may take to parse (default ${PARSE_TIMEOUT_MS / 1000}, the app's); a file
                             past it is skipped with its name, and the next file gets a fresh parse thread
  --max-chunk-tokens <n>     chunk size limit in cl100k tokens (default ${DEFAULT_INDEX_PARAMS.maxChunkTokens})
  --cache <dir>              sentence-embedding cache (default .cache/embeddings); --no-cache to embed afresh
  --concurrency <n>          openai: requests in flight at most (default ${DEFAULT_CONCURRENCY}). Each batch is kept in
                             the cache as it arrives: the same command after a crash embeds only what is missing
  --batch <n>                openai: texts per request (default ${DEFAULT_BATCH}; TEI refuses more than its
                             --max-client-batch-size, 32 unless raised)
`;

export function appVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Expands folders into the files the app can index (fileWalker.ts: regular files inside the folder, the page's
 * extension filter and size cap); files given by name are kept. Entries left out are dropped here; `index` prints
 * a verdict for each (walkInputs).
 */
export async function collectFiles(paths: string[]): Promise<string[]> {
  return (await walkInputs(paths)).files;
}

export interface BuildOptions extends Pick<
  StreamBuildOptions,
  'maxChunkTokens' | 'log' | 'parseTimeoutMs' | 'ocrLanguage'
> {
  embedder: Embedder | null;
  /** Runs over every sentence text before the embedding loop (an endpoint's concurrent cache fill). */
  prefill?: (texts: string[]) => Promise<void>;
}

/**
 * Embeds every sentence once through the app's own loop (batches across documents); returns the vectors per
 * document and the dimension the embedder's answers had (an endpoint's is known only after its first answer).
 */
async function embedPrepared(
  docs: PreparedDocument[],
  embedder: Embedder,
  batchSize: number,
  log: (line: string) => void,
): Promise<{ vectors: Map<string, Float32Array>; dimension: number }> {
  const vectors = new Map<string, Float32Array>();
  const result = await embedDocuments(docs, embedder, {
    batchSize,
    onDocument: (prepared, v) => void vectors.set(prepared.doc.id, v),
    onProgress: throttled((p) => log(`embed ${p.done}/${p.total} sentences (${p.rate.toFixed(0)}/s)`), 2000),
  });
  return { vectors, dimension: result.dimension };
}

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Prepares and embeds files into a snapshot (records in id order, as IndexedDB returns them). */
export async function snapshotFromFiles(
  files: string[],
  options: BuildOptions,
): Promise<{ snapshot: IndexSnapshot; errors: FileError[] }> {
  const log = options.log ?? (() => {});
  const errors: FileError[] = [];
  const docs = new Map<string, PreparedDocument>();
  // Parsed in a thread of its own under the browser's time limit: a parser that hangs or explodes costs its file.
  const parser = new ThreadParser({
    timeoutMs: options.parseTimeoutMs,
    onOcrProgress: logOcrProgress('index'),
    ocrLanguage: options.ocrLanguage,
  });
  try {
    for (const file of files) {
      let bytes: Uint8Array;
      try {
        bytes = await readInputFile(file);
      } catch (error) {
        errors.push({ file, reason: (error as Error).message });
        log(`skipped ${file}: ${(error as Error).message}`);
        continue;
      }
      const result = await parser.prepare(basename(file), bytes, options.maxChunkTokens);
      errors.push(...result.errors);
      for (const d of result.documents) if (!docs.has(d.doc.id)) docs.set(d.doc.id, d);
      log(
        `parsed ${file}: ${result.documents.length} document(s)${result.errors.length ? `, ${result.errors.length} error(s)` : ''}`,
      );
    }
  } finally {
    await parser.close();
  }
  const prepared = [...docs.values()].sort((a, b) => byId(a.doc, b.doc));
  const embedder = options.embedder;
  if (embedder && options.prefill)
    await options.prefill(prepared.flatMap((d) => d.sentences.map((s) => s.text)));
  const embedded = embedder
    ? await embedPrepared(prepared, embedder, 256, log)
    : { vectors: new Map<string, Float32Array>(), dimension: 0 };
  const vectors = embedded.vectors;
  const info: EmbedderInfo | null = embedder ? { id: embedder.id, dimension: embedded.dimension } : null;
  return {
    snapshot: {
      embedder: info,
      params: { maxChunkTokens: options.maxChunkTokens },
      documents: prepared.map((d) => d.doc),
      sections: prepared.flatMap((d) => d.sections).sort(byId),
      chunks: prepared.flatMap((d) => d.chunks).sort(byId),
      sentences: prepared.flatMap((d) => d.sentences).sort(byId),
      vectors,
      tables: {},
    },
    errors,
  };
}

/**
 * The concept graph for a snapshot, built by the same factory the browser's workers use, and with `pages` the
 * library read by ranges written from that engine (src/core/paged: lexical bundles only).
 */
export async function attachGraph(
  snapshot: IndexSnapshot,
  pages = false,
  blockSize?: number,
  groups?: GroupSizes,
  /** Rows with counts up to this many gzip'd bytes keep the lists (tests write a large library's layout with 0). */
  listsInRowsBytes?: number,
  /** Retrieval parameters other than the defaults (tests build a library as `--stream` does with the same ones). */
  params?: Partial<Record<keyof RetrievalParams, unknown>>,
  /** Pages version 12: chunks an evidence block (evidenceArrays.ts); absent: the writers'; 0: none. */
  evidenceEntries?: number,
): Promise<{ snapshot: IndexSnapshot; pages?: BundlePart[] }> {
  const corpus = snapshotToCorpus(snapshot);
  const engine = params
    ? RetrievalEngine.build(retrievalInput(corpus), termAnalyzer(), params)
    : buildEngine(corpus);
  const graph = engine.exportGraph() as unknown as Record<string, unknown>;
  if (!pages) return { snapshot: { ...snapshot, graph } };
  const documents = new Map(snapshot.documents.map((d) => [d.id, d]));
  const written = await writePagedIndex(
    engine.lexicalParts(),
    (docId) => {
      const doc = documents.get(docId);
      return { title: doc?.title ?? docId, ...(doc?.pageStarts ? { pageStarts: doc.pageStarts } : {}) };
    },
    blockSize,
    undefined,
    groups,
    listsInRowsBytes,
    undefined,
    undefined,
    evidenceEntries,
  );
  // The themes beside the pages (themes.json), so a link answers "what is this about?" with one small read.
  const themes = themesOfGraph(engine.graph, new Map(snapshot.chunks.map((c) => [c.id, c])), (docId) =>
    cleanHeading(documents.get(docId)?.title ?? docId),
  );
  return { snapshot: { ...snapshot, graph }, pages: [...pagesParts(written), themesPart(themes)] };
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      into: { type: 'string' },
      embedder: { type: 'string', default: 'use' },
      'embed-key-file': { type: 'string' },
      vectors: { type: 'string', default: 'i8' },
      graph: { type: 'boolean', default: false },
      'no-graph-mask': { type: 'boolean', default: false },
      pages: { type: 'boolean', default: false },
      stream: { type: 'boolean', default: false },
      'block-size': { type: 'string' },
      'group-sizes': { type: 'string' },
      'max-chunk-tokens': { type: 'string' },
      'ocr-language': { type: 'string', default: 'auto' },
      'parse-timeout': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      cache: { type: 'string', default: '.cache/embeddings' },
      'no-cache': { type: 'boolean', default: false },
      concurrency: { type: 'string', default: String(DEFAULT_CONCURRENCY) },
      batch: { type: 'string', default: String(DEFAULT_BATCH) },
      kg: { type: 'boolean', default: false },
      atomic: { type: 'boolean', default: false },
      kappa: { type: 'string', default: String(DEFAULT_KAPPA) },
      'llm-base-url': { type: 'string' },
      'llm-model': { type: 'string' },
      'llm-key-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.out || positionals.length === 0) {
    process.stderr.write(`index: give files or folders and --out <x.bundle>\n${USAGE}`);
    return 2;
  }
  if (values.vectors !== 'i8' && values.vectors !== 'f32') {
    process.stderr.write(`index: --vectors must be i8 or f32, got ${values.vectors}\n`);
    return 2;
  }
  const maxChunkTokens = values['max-chunk-tokens']
    ? Number(values['max-chunk-tokens'])
    : DEFAULT_INDEX_PARAMS.maxChunkTokens;
  if (!Number.isInteger(maxChunkTokens) || maxChunkTokens < 16) {
    process.stderr.write(`index: --max-chunk-tokens must be an integer ≥ 16\n`);
    return 2;
  }
  const blockSize = values['block-size'] === undefined ? undefined : Number(values['block-size']);
  if (
    blockSize !== undefined &&
    !(Number.isInteger(blockSize) && blockSize >= 512 && blockSize <= MAX_BLOCK_FLAG)
  ) {
    process.stderr.write(
      `index: --block-size must be a whole number of bytes from 512 to ${MAX_BLOCK_FLAG}\n`,
    );
    return 2;
  }
  const groups = values['group-sizes'] === undefined ? undefined : parseGroupSizes(values['group-sizes']);
  if (values['group-sizes'] !== undefined && !groups) {
    process.stderr.write(
      `index: --group-sizes takes name=size pairs, names among ${GROUP_NAMES.join(', ')}, sizes from 1 to ` +
        `${MAX_GROUP_FLAG} (e.g. ${DEFAULT_GROUPS_FLAG})\n`,
    );
    return 2;
  }
  const ocrLanguage = ocrLanguageFlag('index', values['ocr-language']);
  if (!ocrLanguage) return 2;
  const parseTimeoutMs = parseTimeoutFlag('index', values['parse-timeout']);
  if (parseTimeoutMs === null) return 2;
  const concurrency = Number(values.concurrency);
  const batch = Number(values.batch);
  if (!Number.isInteger(concurrency) || concurrency < 1 || !Number.isInteger(batch) || batch < 1) {
    process.stderr.write(`index: --concurrency and --batch must be whole numbers ≥ 1\n`);
    return 2;
  }
  const kappa = Number(values.kappa);
  const layers = { kg: values.kg === true, atomic: values.atomic === true };
  const layerFlags = [layers.kg ? '--kg' : '', layers.atomic ? '--atomic' : ''].filter(Boolean).join(' and ');
  const need = layers.kg && layers.atomic ? 'need' : 'needs';
  if (layerFlags && (!values['llm-base-url'] || !(kappa > 0 && kappa <= 1))) {
    process.stderr.write(
      `index: ${layerFlags} ${need} --llm-base-url (and --llm-model), and --kappa in (0, 1]\n`,
    );
    return 2;
  }
  const log = values.quiet ? () => {} : (line: string) => process.stderr.write(`index: ${line}\n`);
  const started = performance.now();

  const { files, skipped } = await walkInputs(positionals);
  for (const e of skipped) process.stderr.write(`index: skipped ${e.file}: ${e.reason}\n`);
  if (files.length === 0) {
    process.stderr.write('index: no supported files found\n');
    return 1;
  }
  const spec = values.embedder === 'none' ? null : values.embedder!;
  if (values.pages && spec) {
    process.stderr.write(
      'index: --pages writes a library read by ranges, which holds the lexical layer only: add --embedder none\n',
    );
    return 2;
  }
  if (values.stream && layerFlags) {
    process.stderr.write(
      `index: ${layerFlags} ${need} the chunks in the bundle: use --pages, not --stream\n`,
    );
    return 2;
  }
  if (values.stream) {
    if (spec || values.into) {
      process.stderr.write(
        'index: --stream writes a pages-only library read by ranges: add --embedder none, and no --into\n',
      );
      return 2;
    }
    try {
      const built = await streamBuild(files, values.out, {
        maxChunkTokens,
        appVersion: appVersion(),
        log,
        ocrLanguage,
        parseTimeoutMs,
        blockSize,
        groups,
      });
      for (const e of built.errors) process.stderr.write(`index: skipped ${e.file}: ${e.reason}\n`);
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `wrote ${values.out}: ${formatBytes(built.bytes)}, ${built.documents} documents, ${built.chunks} chunks, ` +
          `${built.concepts} concepts, ${built.terms} words (pages only) in ${seconds.toFixed(1)} s\n`,
      );
      return 0;
    } catch (error) {
      if (error instanceof StreamBuildEmpty) {
        process.stderr.write(`${error.message}\n`);
        return 1;
      }
      throw error;
    }
  }
  const endpoint = spec !== null && specTakesKey(spec);
  const apiKey = endpoint
    ? await readApiKey({ file: values['embed-key-file'], env: EMBEDDINGS_KEY_ENV })
    : undefined;
  const model = spec ? await createEmbedderFromSpec(spec, endpointRequestOptions(apiKey, batch, log)) : null;
  // The cache returns the vectors the model computed earlier for the same text: same id, same rows. An endpoint
  // always goes through it (in memory only with --no-cache): its fill runs the requests side by side.
  const cache =
    model && (endpoint || !values['no-cache'])
      ? cachedEmbedder(model, values['no-cache'] ? null : values.cache)
      : null;
  const embedder = cache ?? model;
  const prefill =
    endpoint && cache
      ? (texts: string[]) => fillFromService(cache, texts, { concurrency, batchSize: batch, log })
      : undefined;
  let existing: IndexSnapshot | null = null;
  if (values.into) {
    // Read (and fully validate) the existing bundle first: a bad --into fails before minutes of embedding.
    // An endpoint's dimension is unknown until its first answer: then only the id is checked here, and the
    // dimension when the new documents are merged in.
    existing = await readBundleFile(
      values.into,
      embedder && embedder.dimension > 0 ? { id: embedder.id, dimension: embedder.dimension } : null,
    );
    if (embedder && existing.embedder && existing.embedder.id !== embedder.id) {
      throw new Error(
        `index: ${values.into} was built with embedder ${existing.embedder.id}, not ${embedder.id}`,
      );
    }
    log(`read ${values.into}: ${existing.documents.length} documents`);
  }
  try {
    const { snapshot, errors } = await snapshotFromFiles(files, {
      embedder,
      maxChunkTokens,
      log,
      prefill,
      ocrLanguage,
      parseTimeoutMs,
    });
    for (const e of errors) process.stderr.write(`index: skipped ${e.file}: ${e.reason}\n`);
    let result = existing ? mergeSnapshots(existing, snapshot) : snapshot;
    if (result.documents.length === 0) {
      process.stderr.write('index: no document could be indexed\n');
      return 1;
    }
    if (layerFlags) {
      const client = new LlmClient({
        ...DEFAULT_LLM_SETTINGS,
        baseUrl: values['llm-base-url']!,
        model: values['llm-model'] ?? DEFAULT_LLM_SETTINGS.model,
        apiKey: await readApiKey({ file: values['llm-key-file'], env: LLM_KEY_ENV }),
      });
      const t = performance.now();
      result = await withCoreLayers(result, { client, kappa, parts: layers, embedder, concurrency, log });
      log(`${layerFlags.replace(/--/g, '')} built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    // The concept table spares every opener the keyphrase choice (half of a cold question's time); with vectors
    // the keep-mask spares the edge cosines too.
    let pages: BundlePart[] | undefined;
    if (values.graph || !values['no-graph-mask'] || values.pages) {
      const t = performance.now();
      const attached = await attachGraph(result, values.pages, blockSize, groups);
      if (values.graph || !values['no-graph-mask']) result = attached.snapshot;
      pages = attached.pages;
      log(
        `concept graph ${pages ? 'and pages ' : ''}built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
    }
    const bytes = await writeBundleFile(
      values.out,
      writeSnapshotBundle(result, {
        appVersion: appVersion(),
        vectors: values.vectors,
        graph: values.graph ? 'full' : 'compact',
        ...(pages ? { extraParts: pages } : {}),
      }),
    );
    const counts = snapshotCounts(result);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `wrote ${values.out}: ${formatBytes(bytes)}, ${counts.documents} documents, ${counts.chunks} chunks, ` +
        `${counts.sentences} sentences, ${counts.vectors} vectors${result.embedder ? ` (${result.embedder.id})` : ''}` +
        `${result.graph ? `, ${counts.concepts} concepts` : ''} in ${seconds.toFixed(1)} s\n`,
    );
    return 0;
  } finally {
    await model?.dispose?.();
  }
}
