// Holds the page's reading of dropped files' bytes (Blob.prototype.arrayBuffer, which the Library view's intake
// reads a drop with) while the test says so: a state "the drop is taken, none of its bytes read yet" that lasts as
// long as the test needs on any machine, instead of a corpus large enough to outlast the test's next step.
import type { Page } from 'playwright-core';

/**
 * Installs the hold in `page` before its next load (call it before openApp): reads wait while the hold is on. A
 * reload clears the hold (the flag lives in the page), never the patch.
 */
export async function installReadHold(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const read = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = async function (this: Blob) {
      while ((globalThis as { __holdReads?: boolean }).__holdReads)
        await new Promise((r) => setTimeout(r, 50));
      return read.call(this);
    };
  });
}

/** Turns the hold on or off in the page as it is now. */
export async function holdReads(page: Page, on: boolean): Promise<void> {
  await page.evaluate((hold) => ((globalThis as { __holdReads?: boolean }).__holdReads = hold), on);
}
