// The page's dedicated workers from its CDP session, for the benches that profile or read the query worker
// (link-cpu-profile.ts, link-timeline.ts).
import type { CDPSession } from 'playwright-core';

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
