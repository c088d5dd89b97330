// The bundles the e2e specs open are frozen files (test/support/frozenBundles.ts): this fails, naming the file,
// when one was written in another bundle, pages or text-analyser version than the code's own, so a format bump
// cannot leave the specs passing on stale bytes. The fix is to re-run freeze and commit the files.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMAT_VERSION } from '../../../src/core/bundle/format.ts';
import { readManifestByRanges } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import {
  HASH_LEAF_BYTES,
  PAGES_PART,
  PAGES_VERSION,
  type PagesDirectory,
} from '../../../src/core/paged/format.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { FROZEN_BUNDLES, frozenBundle, type FrozenName } from '../../support/frozenBundles.ts';

const REFREEZE = 're-run freeze (node --import tsx test/support/freezeBundles.ts) and commit the files';

describe('frozen e2e bundles', () => {
  for (const name of Object.keys(FROZEN_BUNDLES) as FrozenName[]) {
    it(`${name} is in the code's current formats`, async () => {
      const path = frozenBundle(name);
      const bytes = await readFile(join(process.cwd(), path)).catch(() => {
        throw new Error(`${path} is missing: ${REFREEZE}`);
      });
      // By ranges, as the specs' app reads most of them: a pages-only (--stream) bundle cannot be read whole.
      const manifest = await readManifestByRanges(new MemoryRangeSource(new Uint8Array(bytes), path));
      if (!manifest) throw new Error(`${path}: a bundle older than version 3 (no locator); ${REFREEZE}`);
      expect(manifest.formatVersion, `${path}: bundle format version; ${REFREEZE}`).toBe(FORMAT_VERSION);
      const pages = manifest.parts.find((p) => p.name === PAGES_PART);
      // Every frozen bundle but the two read whole has pages (their flags say which).
      const paged = FROZEN_BUNDLES[name].flags.some((f) => f === '--pages' || f === '--stream');
      expect(pages !== undefined, `${path}: pages part present as its flags say; ${REFREEZE}`).toBe(paged);
      if (!pages) return;
      const directory = pages.meta as unknown as PagesDirectory;
      expect(directory.version, `${path}: pages version; ${REFREEZE}`).toBe(PAGES_VERSION);
      // Written with hash pages (read by ranges as the blocks they cover), as the writers write them since round
      // thirteen: a bundle without them is read through the older path of hashes read whole at opening.
      expect(directory.hashPages?.size, `${path}: hash pages; ${REFREEZE}`).toBe(HASH_LEAF_BYTES);
      expect(directory.analyzer ?? 1, `${path}: text analyser version; ${REFREEZE}`).toBe(
        createTermAnalyzer().version,
      );
    });
  }
});
