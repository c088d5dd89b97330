// The frozen copy of this repository's documentation the tests use as "a real project's docs" (test/fixtures/README.md):
// Markdown with headings, tables and code, long documents, hundreds of chunks. Never the live docs/ folder, which
// grows with every results page. Paths from the repository root, where vitest and playwright run.

/** The whole frozen set: docs/embedding-service.md and 13 results pages. */
export const REPO_DOCS = 'test/fixtures/repo-docs';

/** Its results pages alone (docs/results/ as it was). */
export const REPO_RESULTS = `${REPO_DOCS}/results`;

/** One long results page (60 KB): a small library of one document. */
export const RANGES_PAGE = `${REPO_RESULTS}/ranges.md`;

/** The results page on bundles (12 KB): a shared bundle of one document. */
export const BUNDLES_PAGE = `${REPO_RESULTS}/bundles.md`;
