// Before a drop is queued: how much memory will the tab need to index it, and does this browser give that much?
// A tab has a few GB of JavaScript heap at most, and the app's peak grows with the text of the whole library (the
// query worker holds every chunk, term and vector; the ingest worker builds the graph over all of it). Past a few
// tens of MB of text the tab runs out of memory and reloads, half-way through. Saying so before indexing starts,
// with the numbers and the way around it (index with the CLI, open the bundle), beats a crash. Like the space
// check (storageEstimate.ts), the figures come from file sizes alone, so the page answers at once.
import { formatBytes } from '../format.ts';
import type { DropEstimate } from './storageEstimate.ts';

const MB = 1024 * 1024;

/** Peak JS heap ≈ baseMB + perTextMB × (MB of text in the library), in MB. */
export interface HeapLine {
  baseMB: number;
  perTextMB: number;
}

/**
 * The heap model, measured with `npm run bench:drop` in Chromium 156 (headless, the app built from 704f180) on
 * drops from /work/shared/bench: lexical on the Vue docs, MuSiQue, docs-scale and all of the sets in one folder
 * (0.8 to 12.6 MB of text); with vectors on the Vue docs, 2Wiki and MuSiQue (0.8 to 3.2 MB). docs/results/limits.md has every run, its command, its load average, and
 * `test/bench/heap-fit.ts`, which prints these fits. Peaks are `performance.measureUserAgentSpecificMemory()`
 * sampled every second from the drop until the questions after it were answered (and, with vectors, every
 * sentence was embedded).
 * - `lexical`: sentence vectors off (the "lexical layer only" choice; `bench:drop --lexical`).
 * - `semantic`: the default USE-lite embedder, until every sentence has its vector and the semantic layer is built.
 * - `total`: page and every worker at the highest sample, what the tab as a whole must hold.
 * - `query`: the query worker alone, its own peak: the library the questions read, which is also what opening a
 *   bundle of the same library needs (the CLI does the indexing, the tab still holds the library).
 * Each line is a least-squares fit over the runs, then raised so that no run lies above it (an estimate that is
 * too low lets the tab crash; one too high only warns early, and the user can go on). Past the sizes measured the
 * lines are extrapolations (the co-occurrence graph grows faster than the text in a mixed library).
 */
export const HEAP_MODEL = {
  lexical: {
    total: { baseMB: 63, perTextMB: 57.8 },
    query: { baseMB: 26, perTextMB: 21.7 },
  },
  semantic: {
    // The tab's fit (210 + 70·MB) grows slower than its query worker alone (51 + 84.6·MB) over three runs; the
    // total cannot grow slower than one of its parts, so it takes the query worker's slope.
    total: { baseMB: 210, perTextMB: 85 },
    query: { baseMB: 51, perTextMB: 84.6 },
  },
} as const satisfies Record<'lexical' | 'semantic', Record<'total' | 'query', HeapLine>>;

/**
 * Text past which a drop without sentence vectors stops growing its peak: from 10,000 chunks the library is answered
 * from its pages (src/services/library/pagesThreshold.ts), and a drop then writes pages instead of growing the
 * concept graph, which the query worker never loads (docs/results/drop-heap.md: 100 MiB of text peaked at 495 MB,
 * 30 MiB at 224 MB). 10,000 chunks are 5–10 MB of text in the bench's folders (MuSiQue 0.5 KB a chunk, the scale
 * folders 1.0 KB); 15 MB leaves room for longer chunks, and the line there (930 MB) lies above both runs.
 */
export const LEXICAL_PAGES_TEXT_MB = 15;

/**
 * Bytes of text per stored sentence, to count the library already stored (its sentence count is at hand; its
 * text is not, and reading it for a check would itself cost memory): above the most of the bench's drops (139 on
 * MuSiQue; 47–99 on the others, docs/results/limits.md), so the stored library is not under-counted.
 */
export const TEXT_BYTES_PER_SENTENCE = 160;

/** Where no browser says how much memory a tab may use (Firefox, Safari): about what a phone's tab is allowed. */
export const DEFAULT_BUDGET_BYTES = 1024 * MB;

/** With only navigator.deviceMemory (GB, rounded down, at most 8): a tab should not take more than a quarter. */
const DEVICE_MEMORY_SHARE = 0.25;

/**
 * The URL parameter that sets the budget in MB (e.g. `?heapLimitMB=64`), over what the browser says: to try the
 * warning on a small drop (the e2e suite does), or to match a device the browser does not describe.
 */
const HEAP_LIMIT_PARAM = 'heapLimitMB';

export interface MemoryBudget {
  bytes: number;
  /** Where the figure comes from, in words the message can show. */
  source: string;
}

/** What the budget can be read from: each is absent where the browser does not give it. */
export interface BudgetSources {
  /** `?heapLimitMB=` */
  overrideMB?: number | null;
  /** Chromium's `performance.memory.jsHeapSizeLimit`. */
  jsHeapSizeLimit?: number;
  /** `navigator.deviceMemory` (GB). */
  deviceMemoryGB?: number;
}

/**
 * The memory this tab can give the app. Chromium states one JavaScript heap's limit; the page and its workers run
 * in one renderer process, so their total is compared with it (stricter than each worker against its own heap's
 * limit). Elsewhere a share of the device's memory, or DEFAULT_BUDGET_BYTES.
 */
export function memoryBudget(sources: BudgetSources): MemoryBudget {
  const { overrideMB, jsHeapSizeLimit, deviceMemoryGB } = sources;
  if (overrideMB !== undefined && overrideMB !== null && overrideMB > 0)
    return { bytes: overrideMB * MB, source: `the ${HEAP_LIMIT_PARAM} parameter in the address` };
  if (jsHeapSizeLimit !== undefined && jsHeapSizeLimit > 0)
    return { bytes: jsHeapSizeLimit, source: "this browser's JavaScript heap limit" };
  if (deviceMemoryGB !== undefined && deviceMemoryGB > 0)
    return {
      bytes: deviceMemoryGB * 1024 * MB * DEVICE_MEMORY_SHARE,
      source: `a quarter of this device's ${deviceMemoryGB} GB of memory`,
    };
  return { bytes: DEFAULT_BUDGET_BYTES, source: 'what a browser tab can usually use' };
}

/** The budget as this page sees it: the URL parameter, then what the browser says. */
export function browserMemoryBudget(): MemoryBudget {
  const g = globalThis as {
    location?: { search: string };
    performance?: { memory?: { jsHeapSizeLimit?: number } };
    navigator?: { deviceMemory?: number };
  };
  const raw = g.location ? new URLSearchParams(g.location.search).get(HEAP_LIMIT_PARAM) : null;
  return memoryBudget({
    overrideMB: raw === null ? null : Number(raw),
    jsHeapSizeLimit: g.performance?.memory?.jsHeapSizeLimit,
    deviceMemoryGB: g.navigator?.deviceMemory,
  });
}

/** A line of the heap model at this much text, in bytes (bundleFit.ts reads it too). */
export const atText = (line: HeapLine, textBytes: number) =>
  (line.baseMB + (line.perTextMB * textBytes) / MB) * MB;

export interface MemoryEstimate {
  /** Text the drop adds, and the library's text after it (the stored library counted from its sentences). */
  dropTextBytes: number;
  libraryTextBytes: number;
  /** Peak of the whole tab while indexing and answering, with sentence vectors and without. */
  semanticPeak: number;
  lexicalPeak: number;
  /** The query worker alone with the library open (what opening a bundle of it needs), with vectors or not. */
  semanticOpen: number;
  lexicalOpen: number;
}

/** The model at the library's text after the drop. */
export function estimateMemory(drop: DropEstimate, storedSentences: number): MemoryEstimate {
  const libraryTextBytes = drop.textBytes + storedSentences * TEXT_BYTES_PER_SENTENCE;
  return {
    dropTextBytes: drop.textBytes,
    libraryTextBytes,
    semanticPeak: atText(HEAP_MODEL.semantic.total, libraryTextBytes),
    lexicalPeak: atText(HEAP_MODEL.lexical.total, Math.min(libraryTextBytes, LEXICAL_PAGES_TEXT_MB * MB)),
    semanticOpen: atText(HEAP_MODEL.semantic.query, libraryTextBytes),
    lexicalOpen: atText(HEAP_MODEL.lexical.query, libraryTextBytes),
  };
}

/** A drop the tab will likely not survive, as the Library view shows it before anything is queued. */
export interface MemoryShortfall {
  estimate: MemoryEstimate;
  budget: MemoryBudget;
  /** Whether sentence vectors would be computed (the library's setting). */
  vectors: boolean;
  /** With vectors on: the lexical layer alone fits. */
  lexicalFits: boolean;
  /** The command that indexes the same files outside the browser. */
  command: string;
  /** The plain-words verdict, with the numbers. */
  message: string;
  /** How to open the CLI's bundle here, and whether the tab can hold it. */
  bundleNote: string;
}

/** The folder the files were dropped in (the first part of their relative names), when they share one. */
export function droppedFolder(names: readonly string[]): string | null {
  const tops = new Set(names.map((n) => (n.includes('/') ? n.slice(0, n.indexOf('/')) : '')));
  if (tops.size !== 1) return null;
  const [top] = tops;
  return top === '' ? null : top;
}

/** A path as a shell argument: quoted when it holds anything but plain characters. */
const shellWord = (word: string) => (/^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The CLI command that indexes `folder` into library.bundle (src/cli/index.ts; `--embedder none`: lexical). */
export function cliCommand(folder: string | null, vectors: boolean): string {
  const target = folder === null ? '<folder>' : shellWord(folder);
  return `npm run cli -- index ${target} --out library.bundle${vectors ? '' : ' --embedder none'}`;
}

/**
 * Compares the drop's estimate with the budget. Null when the tab's peak fits: a drop that fits shows nothing
 * more. `vectors` is the library's sentence-vector setting; `folder` names the dropped folder for the command.
 */
export function checkMemory(
  drop: DropEstimate,
  opts: { storedSentences: number; vectors: boolean; budget: MemoryBudget; folder: string | null },
): MemoryShortfall | null {
  const { budget, vectors } = opts;
  const estimate = estimateMemory(drop, opts.storedSentences);
  const peak = vectors ? estimate.semanticPeak : estimate.lexicalPeak;
  if (peak <= budget.bytes) return null;
  const lexicalFits = vectors && estimate.lexicalPeak <= budget.bytes;
  const one = drop.files === 1;
  const files = one ? 'This file holds' : `These ${drop.files.toLocaleString('en')} files hold`;
  const stored = estimate.libraryTextBytes - estimate.dropTextBytes;
  const library =
    stored >= MB / 10
      ? ` (${formatBytes(estimate.libraryTextBytes)} with the text already in your library)`
      : '';
  const message =
    `${files} about ${formatBytes(estimate.dropTextBytes)} of text${library}. Indexing ` +
    `${vectors ? 'it with sentence vectors' : 'its lexical layer'} in this tab needs about ` +
    `${formatBytes(peak)} of memory at its peak; this tab can use about ${formatBytes(budget.bytes)} ` +
    `(${budget.source}). The tab will likely run out of memory and reload before indexing ends.` +
    (lexicalFits
      ? ` Without sentence vectors (the lexical layer only) it needs about ${formatBytes(estimate.lexicalPeak)}, ` +
        'which fits.'
      : '');
  const open = vectors ? estimate.semanticOpen : estimate.lexicalOpen;
  const bundleNote =
    'The command line indexes outside the browser; then open library.bundle here with Import bundle… (it joins ' +
    'your library) or read-only with ?bundle=<its URL> after this page’s address. Holding the library for ' +
    `questions takes about ${formatBytes(open)}` +
    (open <= budget.bytes
      ? ', which fits.'
      : ', more than this tab can use: build it with --embedder none --pages instead, and the bundle is read by ' +
        'ranges (Open bundle read-only… or ?bundle=<its URL>): each question reads only the parts it needs.');
  return {
    estimate,
    budget,
    vectors,
    lexicalFits,
    command: cliCommand(opts.folder, vectors),
    message,
    bundleNote,
  };
}
