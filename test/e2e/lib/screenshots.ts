// The pictures of the app in docs/screenshots and public/screenshots are tracked files that some specs can refresh
// as they pass the state worth showing. Only when asked — `SCREENSHOTS=1 npx playwright test <spec>` — so the suite
// itself leaves `git status` clean (a picture differs by a pixel on every run).
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** docs/screenshots/<name> of the repository. */
export const docsScreenshot = (name: string): string => join(ROOT, 'docs', 'screenshots', name);

/** public/screenshots/<name> of the repository (shipped with the app). */
export const publicScreenshot = (name: string): string => join(ROOT, 'public', 'screenshots', name);

/** Saves a picture of `target` at `path` when SCREENSHOTS is set; otherwise does nothing. */
export async function keepScreenshot(
  target: Page | Locator,
  path: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (!process.env.SCREENSHOTS) return;
  await mkdir(dirname(path), { recursive: true });
  if ('goto' in target) await target.screenshot({ path, fullPage: options.fullPage ?? false });
  else await target.screenshot({ path });
}
