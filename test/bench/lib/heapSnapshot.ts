// A heap snapshot of one of the page's dedicated workers (the query worker, for drop.ts --heap-snapshot), taken
// through the page's DevTools session, and what it holds grouped two ways: by constructor (strings, Maps, typed
// arrays' backing stores…) and by the field that holds it (Owner.field, found by walking up the retainers), so
// docs/results/limits.md can say what dominates a library's memory.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';

const MB = 1024 * 1024;

interface HeapGroup {
  name: string;
  count: number;
  MB: number;
}

export interface WorkerHeapSummary {
  worker: string;
  file: string;
  totalMB: number;
  byConstructor: HeapGroup[];
  byHolder: HeapGroup[];
}

/**
 * Attaches to the page's dedicated workers (non-flat sessions: Playwright's own session keeps its flat ones),
 * takes a heap snapshot of the first whose URL contains `urlPart`, streams it to `file` and summarizes it.
 */
export async function snapshotWorker(
  context: BrowserContext,
  page: Page,
  urlPart: string,
  file: string,
  top = 15,
): Promise<WorkerHeapSummary> {
  const cdp = await context.newCDPSession(page);
  const workers = new Map<string, string>();
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker') workers.set(e.targetInfo.url, e.sessionId);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const until = Date.now() + 10_000;
  let sessionId: string | undefined;
  while (!(sessionId = [...workers].find(([url]) => url.includes(urlPart))?.[1])) {
    if (Date.now() > until)
      throw new Error(`no worker whose URL has ${urlPart} (saw ${[...workers.keys()].join(', ') || 'none'})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const worker = [...workers].find(([, id]) => id === sessionId)?.[0] ?? urlPart;
  const out = createWriteStream(file);
  const done = new Promise<void>((resolve, reject) => {
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      if (e.sessionId !== sessionId) return;
      const message = JSON.parse(e.message) as {
        id?: number;
        method?: string;
        params?: { chunk: string };
        error?: { message: string };
      };
      if (message.method === 'HeapProfiler.addHeapSnapshotChunk' && message.params)
        out.write(message.params.chunk);
      else if (message.id === 2) {
        if (message.error) reject(new Error(message.error.message));
        else out.end(() => resolve());
      }
    });
  });
  const send = (id: number, method: string, params: object = {}) =>
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
  await send(1, 'HeapProfiler.enable');
  await send(2, 'HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
  await done;
  await cdp.detach().catch(() => undefined);
  return { worker, file, ...(await summarizeFile(file, top)) };
}

/** The summary of a snapshot file written earlier (test/bench/heap-summary.ts). */
export async function summarizeFile(
  file: string,
  top = 15,
): Promise<{ totalMB: number; byConstructor: HeapGroup[]; byHolder: HeapGroup[] }> {
  return summarize(await readFile(file, 'utf8'), top);
}

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Totals of a V8 heap snapshot by constructor and by holder. */
function summarize(
  json: string,
  top: number,
): { totalMB: number; byConstructor: HeapGroup[]; byHolder: HeapGroup[] } {
  const s = JSON.parse(json) as Snapshot;
  const { node_fields, node_types, edge_fields, edge_types } = s.snapshot.meta;
  const nf = node_fields.length;
  const ef = edge_fields.length;
  const [nType, nName, nSize, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    node_fields.indexOf(f),
  );
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => edge_fields.indexOf(f));
  const nodeTypes = node_types[0];
  const edgeTypes = edge_types[0];
  const count = s.nodes.length / nf;
  const typeOf = (n: number) => nodeTypes[s.nodes[n * nf + nType]];
  const nameOf = (n: number) => s.strings[s.nodes[n * nf + nName]];
  const sizeOf = (n: number) => s.nodes[n * nf + nSize];
  const group = (n: number) => {
    const type = typeOf(n);
    if (type === 'object' || type === 'native') return nameOf(n);
    if (type.includes('string')) return '(strings)';
    return `(${type})`;
  };

  // Each node's first strong retainer and the edge's name: enough to walk up to the field that holds it.
  const retainer = new Int32Array(count).fill(-1);
  const viaEdge = new Array<string>(count);
  let edge = 0;
  let total = 0;
  for (let n = 0; n < count; n++) {
    total += sizeOf(n);
    const edges = s.nodes[n * nf + nEdges];
    for (let k = 0; k < edges; k++, edge += ef) {
      const type = edgeTypes[s.edges[edge + eType]];
      if (type === 'weak' || type === 'shortcut') continue;
      const to = s.edges[edge + eTo] / nf;
      if (retainer[to] !== -1) continue;
      retainer[to] = n;
      const name = s.edges[edge + eName];
      // Named links only (a property, a captured variable); a table's slots and internal links are looked through.
      viaEdge[to] = type === 'property' || type === 'context' ? s.strings[name] : '';
    }
  }
  // Containers to look through on the way up: a typed array's buffer, a Map's table, an array's elements.
  const transparent = (n: number) => {
    const type = typeOf(n);
    const name = nameOf(n);
    return (
      type === 'native' ||
      type === 'array' ||
      type === 'hidden' ||
      type.includes('string') ||
      /Array$|^ArrayBuffer$|^system \/|^Map$|^Set$|^Object$|^\(/.test(name)
    );
  };
  /** Owner.a.b: the first non-container owner (or closure scope) above the node, and the named links to it. */
  const holderOf = (n: number) => {
    const path: string[] = [];
    let at = n;
    for (let depth = 0; depth < 10; depth++) {
      const up = retainer[at];
      if (up < 0) return ['(root)', ...path].join('.');
      if (viaEdge[at]) path.unshift(viaEdge[at]);
      // A variable a closure or a module's scope captured: its name is the holder.
      if (nameOf(up).startsWith('system / Context')) return path.join('.') || '(closure)';
      if (!transparent(up)) return [nameOf(up) || '(anonymous)', ...path].join('.');
      at = up;
    }
    return ['…', ...path].join('.');
  };

  const byConstructor = new Map<string, { count: number; bytes: number }>();
  const byHolder = new Map<string, { count: number; bytes: number }>();
  for (let n = 0; n < count; n++) {
    const size = sizeOf(n);
    if (size === 0) continue;
    const g = group(n);
    const c = byConstructor.get(g) ?? { count: 0, bytes: 0 };
    c.count += 1;
    c.bytes += size;
    byConstructor.set(g, c);
    // Holders only for what is worth naming: objects of 64 KB and more (typed arrays' stores, big arrays and
    // tables), and every string (chunk texts, terms).
    if (size >= 64 * 1024 || typeOf(n).includes('string')) {
      const h = holderOf(n);
      const e = byHolder.get(h) ?? { count: 0, bytes: 0 };
      e.count += 1;
      e.bytes += size;
      byHolder.set(h, e);
    }
  }
  const sorted = (m: Map<string, { count: number; bytes: number }>) =>
    [...m]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
      .map(([name, v]) => ({ name, count: v.count, MB: Number((v.bytes / MB).toFixed(1)) }));
  return {
    totalMB: Number((total / MB).toFixed(1)),
    byConstructor: sorted(byConstructor),
    byHolder: sorted(byHolder),
  };
}
