// The question the Library view asks before a drop is queued, when the drop will not fit (storage-estimate: the
// space the browser offers; memory-estimate: the memory a tab may use): nothing is queued while it is open, Stop
// stores nothing, and the same drop again with a choice that goes on is indexed. Both specs check the same steps.
import type { Locator, Page } from 'playwright-core';
import { readCounts, waitIdle } from './app.ts';
import { expect } from './fixtures.ts';

/**
 * While the question is open nothing is queued or stored: the app waits for the person. (It says it is busy
 * meanwhile: a drop is never reported idle while its files wait, see the drop record in ARCHITECTURE.md.)
 */
export async function expectNothingQueued(page: Page): Promise<void> {
  const waiting = await readCounts(page);
  expect(waiting.pendingWaiting + waiting.documents, 'queued before the user chose').toBe(0);
}

/**
 * Answers the open question `check` with its Stop button (test id `stop`): the question closes, the app says
 * nothing was indexed, and it is idle with nothing queued or stored. Returns that alert, for what else it says.
 */
export async function stopDrop(page: Page, check: Locator, stop: string): Promise<Locator> {
  await page.getByTestId(stop).click();
  await expect(check).toBeHidden();
  const alert = page.getByRole('alert').filter({ hasText: 'Nothing was indexed' });
  await expect(alert).toBeVisible();
  await expect(page.locator('[data-indexing]')).toHaveAttribute('data-indexing', 'idle');
  const stopped = await readCounts(page);
  expect(stopped.pendingWaiting + stopped.documents, 'Stop still queued the drop').toBe(0);
  return alert;
}

/**
 * Makes the drop again (`drop`), answers the question `check` it asks again with `choice` (a test id), and waits
 * until the drop is indexed: the question closes and the files are queued, then the app is idle.
 */
export async function dropAgainAndGoOn(
  page: Page,
  check: Locator,
  drop: () => Promise<void>,
  choice: string,
): Promise<void> {
  await drop();
  await expect(check).toBeVisible();
  await page.getByTestId(choice).click();
  await expect(check).toBeHidden();
  // The files are queued after the choice, asynchronously: until then the app is idle with nothing waiting, which
  // waitIdle would take for the end of the run.
  await expect
    .poll(async () => {
      const c = await readCounts(page);
      return c.documents + c.pendingWaiting;
    })
    .toBeGreaterThan(0);
  await waitIdle(page);
}
