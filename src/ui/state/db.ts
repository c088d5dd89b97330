// The page's own connection to the IndexedDB store: small reads only (counts, document list, one document for
// the viewer, settings). Every heavy write happens in the ingest worker.
import { openDatabase, type ConceptDb } from '../../store/db.ts';
import { Repo } from '../../store/repo.ts';

let db: ConceptDb | null = null;
let repo: Repo | null = null;

export function pageRepo(): Repo {
  db ??= openDatabase();
  repo ??= new Repo(db);
  return repo;
}
