// Compile-time contract of the worker APIs as the page sees them through Comlink (typecheck fails if a worker
// changes a signature the UI relies on); the runtime assertions only make vitest count the file.
import type { Remote } from 'comlink';
import { describe, expectTypeOf, it } from 'vitest';
import type { ImportResult } from '../../../src/store/bundleImport.ts';
import type { IngestApi } from '../../../workers/ingest.worker.ts';
import type { AskResult, IngestListener, RetrievalMode } from '../../../src/services/protocol.ts';
import type { QueryApi } from '../../../workers/query.worker.ts';

describe('worker API types', () => {
  it('ingest worker', () => {
    expectTypeOf<Remote<IngestApi>['enqueue']>().parameters.toEqualTypeOf<
      [{ name: string; bytes: ArrayBuffer }[]]
    >();
    expectTypeOf<Remote<IngestApi>['subscribe']>().parameter(0).toExtend<IngestListener>();
    expectTypeOf<Remote<IngestApi>['removeDocument']>().returns.resolves.toBeBoolean();
    expectTypeOf<Remote<IngestApi>['importBundle']>().returns.resolves.toEqualTypeOf<ImportResult>();
    expectTypeOf<Remote<IngestApi>['cancel']>().returns.resolves.toEqualTypeOf<void>();
  });

  it('query worker', () => {
    expectTypeOf<Remote<QueryApi>['ask']>()
      .parameter(0)
      .toEqualTypeOf<{ question: string; mode: RetrievalMode; budget: number }>();
    expectTypeOf<Remote<QueryApi>['ask']>().returns.resolves.toEqualTypeOf<AskResult>();
  });
});
