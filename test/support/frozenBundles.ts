// The bundles the e2e specs open, frozen as files under test/fixtures/bundles/ (written by
// test/support/freezeBundles.ts with the `cli index` arguments below): a spec copies the file where it serves it
// instead of running `cli index` at test time. The frozen files' format versions are checked against the code's
// (test/unit/bundle/frozenBundles.test.ts): a format bump fails that test until freeze is re-run. `cli index` →
// bundle itself stays covered live by the CLI's unit tests and library-opening's Vue docs bundle (bundleOnce).
import { join } from 'node:path';
import { BUNDLE_TEXT, corpus } from './lighthouseCorpus.ts';
import { BUNDLES_PAGE, RANGES_PAGE, REPO_DOCS, REPO_RESULTS } from './repoDocs.ts';

/** Where the frozen bundles are, from the repository root (where vitest and playwright run). */
export const FROZEN_DIR = 'test/fixtures/bundles';

/** How a frozen bundle was made: `cli index <input> --out <file> --embedder none --quiet <flags>`. */
export interface FrozenBundle {
  input: string;
  /** The input's text, when it is not a file of the repository: written to a file named `input` first. */
  text?: string;
  flags: readonly string[];
  /** Whether `cli index` also builds the KG, by the scripted LLM server (its URL goes after these flags). */
  kg?: boolean;
}

export const FROZEN_BUNDLES = {
  /** The repo docs read by ranges (bundle-ranges). */
  'repo-docs.pages.bundle': { input: REPO_DOCS, flags: ['--pages'] },
  /** The repo docs built one file at a time, pages only (bundle-stream). */
  'repo-docs.stream.bundle': { input: REPO_DOCS, flags: ['--stream'] },
  /** One long page read by ranges (bundle-ranges). */
  'ranges.pages.bundle': { input: RANGES_PAGE, flags: ['--pages'] },
  /** One long page, pages only (bundle-ranges). */
  'ranges.stream.bundle': { input: RANGES_PAGE, flags: ['--stream'] },
  /** A shared bundle of one document, read whole (bundle-ranges, bundle-offline, library-opening). */
  'bundles.bundle': { input: BUNDLES_PAGE, flags: [] },
  /** The same read by ranges (bundle-offline). */
  'bundles.pages.bundle': { input: BUNDLES_PAGE, flags: ['--pages'] },
  /** The results pages with pages and a KG built by the scripted LLM (bundle-ranges-kg). */
  'results.kg.pages.bundle': { input: REPO_RESULTS, flags: ['--pages', '--kg', '--kappa', '0.3'], kg: true },
  /** A passage about the Pharos among filler, read whole (bundle-readonly-llm). */
  'pharos.bundle': {
    input: 'pharos.jsonl',
    text: corpus({ title: 'Pharos', text: BUNDLE_TEXT }, 'Granary'),
    flags: [],
  },
} satisfies Record<string, FrozenBundle>;

export type FrozenName = keyof typeof FROZEN_BUNDLES;

/** The path of a frozen bundle, from the repository root. */
export function frozenBundle(name: FrozenName): string {
  return join(FROZEN_DIR, name);
}
