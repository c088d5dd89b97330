// Compile-time contract of the worker APIs as the page sees them through Comlink (typecheck fails if a worker
// changes a signature the UI relies on); the runtime assertions only make vitest count the file.
import type { Remote } from 'comlink';
import { describe, expectTypeOf, it } from 'vitest';
import type { LlmSettings } from '../../../src/core/llm/settings.ts';
import type { ProgressCallback } from '../../../src/core/types.ts';
import type { ImportResult } from '../../../src/store/bundleImport.ts';
import type { KgBuildResult, KgEstimate, KgStatus } from '../../../src/services/llm/kgBuild.ts';
import type { IngestListener } from '../../../src/services/ingest/ingestProtocol.ts';
import type {
  AnswerOut,
  AnswerRequest,
  AskRequest,
  AskResult,
} from '../../../src/services/questions/queryProtocol.ts';
import type { KgUiApi } from '../../../src/ui/llm/api.ts';
import type { IngestApi } from '../../../src/services/ingest/ingest.ts';
import type { KgApi } from '../../../src/services/llm/kgBuild.ts';
import type { QueryApi } from '../../../src/services/query/queryService.ts';

describe('worker API types', () => {
  it('ingest worker', () => {
    // The page queues a drop's bytes in the store itself (intakeStore.ts), then tells the worker.
    expectTypeOf<Remote<IngestApi>['notifyQueued']>().parameters.toEqualTypeOf<[]>();
    expectTypeOf<Remote<IngestApi>['subscribe']>().parameter(0).toExtend<IngestListener>();
    expectTypeOf<Remote<IngestApi>['removeDocuments']>().returns.resolves.toBeNumber();
    expectTypeOf<Remote<IngestApi>['importBundle']>().returns.resolves.toEqualTypeOf<ImportResult>();
    expectTypeOf<Remote<IngestApi>['cancel']>().returns.resolves.toEqualTypeOf<void>();
  });

  it('query worker answers every mode through one ask, and streams answers', () => {
    expectTypeOf<Remote<QueryApi>['ask']>().parameter(0).toEqualTypeOf<AskRequest>();
    expectTypeOf<AskRequest['mode']>().toEqualTypeOf<
      | 'ppr'
      | 'concept'
      | 'dense'
      | 'bm25'
      | 'rrf:ppr+bm25'
      | 'kg'
      | 'hybrid'
      | 'atomic'
      | 'decompose'
      | 'logical'
    >();
    expectTypeOf<Remote<QueryApi>['ask']>().returns.resolves.toEqualTypeOf<AskResult>();
    expectTypeOf<Remote<QueryApi>['answer']>().parameter(0).toEqualTypeOf<AnswerRequest>();
    expectTypeOf<Remote<QueryApi>['answer']>().returns.resolves.toEqualTypeOf<AnswerOut>();
    expectTypeOf<Remote<QueryApi>['invalidate']>().parameters.toEqualTypeOf<
      [what?: 'library' | 'kg' | undefined]
    >();
    expectTypeOf<Remote<QueryApi>['cancelAnswer']>().returns.resolves.toEqualTypeOf<void>();
    expectTypeOf<Remote<QueryApi>['cancelAsk']>().returns.resolves.toEqualTypeOf<void>();
  });

  it('KG worker builds and keeps the endpoint settings; it answers no questions', () => {
    expectTypeOf<Remote<KgApi>['status']>().returns.resolves.toEqualTypeOf<KgStatus>();
    expectTypeOf<Remote<KgApi>['estimate']>().returns.resolves.toEqualTypeOf<KgEstimate>();
    expectTypeOf<Remote<KgApi>['build']>().parameter(1).toExtend<ProgressCallback | undefined>();
    expectTypeOf<Remote<KgApi>['build']>().returns.resolves.toEqualTypeOf<KgBuildResult>();
    expectTypeOf<Remote<KgApi>['saveSettings']>().parameter(0).toEqualTypeOf<LlmSettings>();
    expectTypeOf<Remote<KgApi>>().not.toHaveProperty('ask');
    expectTypeOf<Remote<KgApi>>().not.toHaveProperty('answer');
    // The page's KG panels are served by the KG worker's methods as they are.
    expectTypeOf<Awaited<ReturnType<Remote<KgApi>['status']>>>().toEqualTypeOf<
      Awaited<ReturnType<KgUiApi['status']>>
    >();
    // The panels' API is derived from the service: a read-only bundle is announced without arguments, as the
    // service takes it (a hand-written type once asked for a URL here).
    expectTypeOf<KgUiApi['useBundle']>().parameters.toEqualTypeOf<[]>();
    expectTypeOf<KgUiApi['build']>().parameter(1).toEqualTypeOf<ProgressCallback | undefined>();
  });
});
