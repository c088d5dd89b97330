// The LLM/KG components' only dependencies: plain async APIs (no Comlink types in the components), so tests may
// pass any object of these shapes. KgUiApi (endpoint settings, KG build) is backed by the KG worker; questions in
// every mode and the written answer go through the Ask state (src/ui/state/ask.svelte.ts) to the query worker.
import { proxy } from 'comlink';
import type { LlmSettings } from '../../core/llm/index.ts';
import type { ConnectionDiagnosis } from '../../core/llm/index.ts';
import type { Progress } from '../../core/types.ts';
import type {
  DistillParts,
  KgBuildResult,
  KgEstimate,
  KgStatus,
  PageLlmSettings,
} from '../../services/llm/kgBuild.ts';
import type { KgMode } from '../../services/questions/modeRegistry.ts';
import type { AnswerOut, AskResult, Evidence } from '../../services/questions/queryProtocol.ts';
import type { TraceEvent } from '../../core/llm/index.ts';
import { kgChanged, kgWorker } from '../workers.ts';

export type {
  AnswerOut,
  AskResult,
  DistillParts,
  Evidence,
  KgBuildResult,
  KgEstimate,
  KgMode,
  KgStatus,
  PageLlmSettings,
  TraceEvent,
};

export interface KgUiApi {
  /** The stored settings with the key left out (`keyStored` says whether there is one). */
  getSettings(): Promise<PageLlmSettings | undefined>;
  /** An empty key keeps the stored one for the same base URL only (`keyKept`). */
  saveSettings(settings: LlmSettings): Promise<{ keyKept: boolean }>;
  testConnection(settings: LlmSettings): Promise<ConnectionDiagnosis>;
  status(): Promise<KgStatus>;
  /** `parts`: the KG, PIKE-RAG's atomic questions, or both (default: the KG). */
  estimate(kappa: number, parts?: DistillParts): Promise<KgEstimate>;
  build(
    request: { kappa: number; retryFailed?: boolean; parts?: DistillParts },
    onProgress: (p: Progress) => void,
  ): Promise<KgBuildResult>;
  cancelBuild(): Promise<void>;
  /** The page shows this read-only bundle (?bundle=): building a KG of the local library is refused. */
  useBundle(url: string): Promise<void>;
}

/** The KG build and LLM settings API over the KG worker (one worker per page, created on first use). */
export function createKgUiApi(): KgUiApi {
  return {
    getSettings: () => kgWorker().getSettings(),
    saveSettings: (s) => kgWorker().saveSettings(s),
    testConnection: (s) => kgWorker().testConnection(s, location.origin),
    status: () => kgWorker().status(),
    estimate: (kappa, parts) => kgWorker().estimate(kappa, parts),
    // A build, finished or stopped, has committed chunks: questions must see them.
    build: (request, onProgress) => kgWorker().build(request, proxy(onProgress)).finally(kgChanged),
    cancelBuild: () => kgWorker().cancelBuild(),
    useBundle: () => kgWorker().useBundle(),
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
