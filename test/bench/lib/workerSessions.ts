// The page's dedicated workers from its CDP session, for the benches that profile or read the query worker
// (link-cpu-profile.ts, link-timeline.ts).
import type { CDPSession, Page } from 'playwright-core';

/**
 * The page's dedicated workers, attached (not flattened) from the page's CDP session: commands go through
 * Target.sendMessageToTarget, answers come back as Target.receivedMessageFromTarget.
 */
export class WorkerSessions {
  private next = 1;
  private readonly waiting = new Map<number, (result: unknown) => void>();
  readonly workers: Array<{ sessionId: string; url: string }> = [];
  constructor(private readonly cdp: CDPSession) {
    cdp.on(
      'Target.attachedToTarget',
      (e: { sessionId: string; targetInfo: { type: string; url: string } }) => {
        if (e.targetInfo.type === 'worker')
          this.workers.push({ sessionId: e.sessionId, url: e.targetInfo.url });
      },
    );
    cdp.on('Target.receivedMessageFromTarget', (e: { message: string }) => {
      const m = JSON.parse(e.message) as { id?: number; result?: unknown };
      if (m.id !== undefined) this.waiting.get(m.id)?.(m.result);
    });
  }
  /**
   * Opens the bundle at `url` (a new document: its workers attached anew), types `question` in the Ask view and
   * waits until Ask can be pressed; the session of the one query worker (the graph worker idles during a question).
   */
  async questionReady(
    page: Page,
    url: string,
    question: string,
    bench: string,
    timeoutMs: number,
  ): Promise<string> {
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForSelector('[data-testid="read-by-ranges"]', { timeout: timeoutMs });
    await this.attach();
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', question, { timeout: timeoutMs });
    await page.waitForSelector('[data-testid="ask"]:not([disabled])', { timeout: timeoutMs });
    const live = this.workers.filter((w) => w.url.includes('query'));
    if (live.length !== 1) throw new Error(`${bench} bench: ${live.length} query workers attached`);
    return live[0].sessionId;
  }
  /** Attaches anew (off, then on): a new document's workers are reported again. */
  async attach(): Promise<void> {
    this.workers.length = 0;
    await this.cdp.send('Target.setAutoAttach', {
      autoAttach: false,
      waitForDebuggerOnStart: false,
      flatten: false,
    });
    await this.cdp.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: false,
      flatten: false,
    });
  }
  send<T>(sessionId: string, method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    const answer = new Promise<T>((done) => this.waiting.set(id, done as (r: unknown) => void));
    void this.cdp.send('Target.sendMessageToTarget', {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    });
    return answer;
  }
}
