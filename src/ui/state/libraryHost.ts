// What the parts of the library state (indexingRun.svelte.ts, dropIntake.svelte.ts, libraryBundles.svelte.ts) read
// and call on the LibraryState that holds them, and on each other through it. Types only, and importing none of
// those four files: a part typed by LibraryState itself imported the file that constructs it (a circle of imports).
import type { FileOutcome, IngestStopCause, LibraryCoverage } from '../../services/ingest/ingestProtocol.ts';
import type { StoreCounts } from '../../store/libraryRepo.ts';
import type { DropTally } from '../estimates/dropProgress.ts';

/** A bundle opened read-only (from ?bundle=… or a file): nothing is indexed or stored, questions go to the bundle. */
export interface ReadOnlyLibrary {
  url: string;
  counts: Record<string, number>;
  embedderId: string | null;
  /** Read by HTTP ranges (a bundle with pages): each question fetches only the blocks it needs. */
  byRanges?: boolean;
  /** Its pages are read from one whole download kept out of the tab's memory (its host sent no ranges). */
  downloaded?: boolean;
  /** Read by ranges from the copy kept for offline use (its host could not be reached). */
  fromOfflineCopy?: boolean;
  /** Its documents (read whole: listed in the Library view), the first ones by title, and how many it has. */
  documents?: { total: number; documents: { id: string; title: string; source: string }[] } | null;
}

/** The run stopped because the browser refused or did not finish a write; the queue is kept. */
export interface StorageStop {
  cause: IngestStopCause;
  /** The file being stored, when the pipeline named one. */
  file: string | null;
  /** Files still in the queue (names), for the user to see that nothing was lost. */
  queued: string[];
  /** A file the store refused to queue at all (its bytes could not be kept): it must be added again. */
  notQueued: string | null;
}

/** What a drop (DropIntake) reads and calls of the indexing run (IndexingRun). */
interface RunOfHost {
  outcomes: FileOutcome[];
  storageStop: StorageStop | null;
  readonly tally: DropTally | null;
  newDrop(): DropTally;
  updateDrop(): void;
  stoppedByStorage(cause: IngestStopCause, file: string | null, notQueued?: string | null): Promise<void>;
  showOutcomes(list: FileOutcome[]): void;
}

/** What the indexing run (IndexingRun) reads and calls of the drop (DropIntake). */
interface IntakeOfHost {
  readonly feeding: number;
  storeUnread(): Promise<void>;
  stopReading(): Promise<void>;
}

/** The library state as its parts see it (LibraryState implements it). */
export interface LibraryHost {
  readonly counts: StoreCounts;
  message: string | null;
  notice: string | null;
  running: boolean;
  vectorsOff: boolean;
  removing: { documents: number } | null;
  readonly coverage: LibraryCoverage | null;
  readonly run: RunOfHost;
  readonly intake: IntakeOfHost;
  refresh(withList?: boolean): Promise<void>;
  scheduleRefresh(): void;
  fileStored(): void;
  heardCoverage(coverage: LibraryCoverage): void;
  coverageFromCounts(): LibraryCoverage;
  showReadOnly(opened: ReadOnlyLibrary, vectors: number): void;
}
