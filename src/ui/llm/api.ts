// The LLM/KG components' only dependency: a plain async API (no Comlink types in the components). createKgUiApi()
// backs it with the KG worker, wrapping callbacks in Comlink proxies; tests may pass any object of this shape.
import { proxy, wrap, type Remote } from 'comlink';
import type { KgBuildSummary } from '../../core/kg/build.ts';
import type { LlmSettings } from '../../core/llm/settings.ts';
import type { ConnectionDiagnosis } from '../../core/llm/testConnection.ts';
import type { Progress } from '../../core/types.ts';
import type {
  AnswerOut,
  KgApi,
  KgAskResult,
  KgEstimate,
  KgEvidence,
  KgMode,
  KgStatus,
} from '../../../workers/kg.worker.ts';
import { workerName } from '../state/crossTab.svelte.ts';

export type { AnswerOut, KgAskResult, KgEstimate, KgEvidence, KgMode, KgStatus };

export type KgBuildResult = KgBuildSummary & { embedded: number };

export interface KgUiApi {
  getSettings(): Promise<LlmSettings | undefined>;
  saveSettings(settings: LlmSettings): Promise<void>;
  testConnection(settings: LlmSettings): Promise<ConnectionDiagnosis>;
  status(): Promise<KgStatus>;
  estimate(kappa: number): Promise<KgEstimate>;
  build(
    request: { kappa: number; retryFailed?: boolean },
    onProgress: (p: Progress) => void,
  ): Promise<KgBuildResult>;
  cancelBuild(): Promise<void>;
  ask(request: { question: string; mode: KgMode; budget: number; lambda?: number }): Promise<KgAskResult>;
  answer(
    request: { question: string; evidence: KgEvidence[]; facts?: string[] },
    onDelta: (delta: string) => void,
  ): Promise<AnswerOut>;
  cancelAnswer(): Promise<void>;
  /** The library changed (documents added or removed): reload the corpus on next use. */
  invalidate(): Promise<void>;
  /** Answer from this read-only bundle (?bundle=, same origin), never from the local library. */
  useBundle(url: string): Promise<void>;
}

let remote: Remote<KgApi> | null = null;

function kgWorker(): Remote<KgApi> {
  remote ??= wrap<KgApi>(
    new Worker(new URL('../../../workers/kg.worker.ts', import.meta.url), {
      type: 'module',
      name: workerName('kg'),
    }),
  );
  return remote;
}

/** The KG/LLM API over the KG worker (one worker per page, created on first use). */
export function createKgUiApi(): KgUiApi {
  const w = (): Remote<KgApi> => kgWorker();
  return {
    getSettings: () => w().getSettings(),
    saveSettings: (s) => w().saveSettings(s),
    testConnection: (s) => w().testConnection(s, location.origin),
    status: () => w().status(),
    estimate: (kappa) => w().estimate(kappa),
    build: (request, onProgress) => w().build(request, proxy(onProgress)),
    cancelBuild: () => w().cancelBuild(),
    ask: (request) => w().ask(request),
    // Evidence objects are plain data: strip anything Svelte may have proxied before structured cloning.
    answer: (request, onDelta) => w().answer(JSON.parse(JSON.stringify(request)), proxy(onDelta)),
    cancelAnswer: () => w().cancelAnswer(),
    invalidate: () => w().invalidate(),
    useBundle: (url) => w().useBundle(url),
  };
}

/** Formats a token count as 12,345 and a cost with enough digits to be non-zero. */
export function formatTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatCost(cost: number): string {
  if (cost === 0) return '0';
  return cost >= 1 ? cost.toFixed(2) : cost.toPrecision(2);
}
