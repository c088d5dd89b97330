// The LLM/KG components' only dependencies: plain async APIs (no Comlink types in the components), so tests may
// pass any object of these shapes. KgUiApi (endpoint settings, KG build) is backed by the KG worker; AnswerUiApi
// (questions in the KG modes and streamed answers) by the query worker, which answers every mode.
import { proxy, type Remote } from 'comlink';
import type { LlmSettings } from '../../core/llm/index.ts';
import type { ConnectionDiagnosis } from '../../core/llm/index.ts';
import type { Progress } from '../../core/types.ts';
import type {
  DistillParts,
  KgBuildResult,
  KgEstimate,
  KgStatus,
  PageLlmSettings,
} from '../../services/kgBuild.ts';
import type {
  AnswerOut,
  AnswerRequest,
  AskRequest,
  AskResult,
  Evidence,
  KgMode,
  QuestionMode,
} from '../../services/queryProtocol.ts';
import type { TraceEvent } from '../../core/llm/index.ts';
import type { QueryApi } from '../../../workers/query.worker.ts';
import { kgChanged, kgWorker, queryWorker } from '../workers.ts';

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

/** The modes of the answer panel: the KG modes, PIKE-RAG's atomic and decompose, KAG's logical. */
export type AnswerPanelMode = Extract<QuestionMode, KgMode | 'atomic' | 'decompose' | 'logical'>;

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

export interface AnswerUiApi {
  /** `onTrace` receives a reasoning mode's events as they happen. */
  ask(
    request: AskRequest & { mode: AnswerPanelMode },
    onTrace?: (event: TraceEvent) => void,
  ): Promise<AskResult>;
  answer(request: AnswerRequest, onDelta: (delta: string) => void): Promise<AnswerOut>;
  cancelAnswer(): Promise<void>;
  /** Stops a reasoning mode's run. */
  cancelAsk(): Promise<void>;
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

/**
 * Questions and answers over the query worker; `query` hands it over once it holds the current library (the
 * Ask state reloads it after the library changed).
 */
export function createAnswerUiApi(query: () => Promise<Remote<QueryApi>>): AnswerUiApi {
  return {
    ask: async (request, onTrace) =>
      (await query()).ask(request, undefined, onTrace ? proxy(onTrace) : undefined),
    // Evidence objects are plain data: strip anything Svelte may have proxied before structured cloning.
    answer: async (request, onDelta) =>
      (await query()).answer(JSON.parse(JSON.stringify(request)) as AnswerRequest, proxy(onDelta)),
    cancelAnswer: () => queryWorker().cancelAnswer(),
    cancelAsk: () => queryWorker().cancelAsk(),
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
