// Page-side probe for test/bench/link-latency.ts (serialized by Playwright and run in the page: no imports, no
// closures). Unlike dropProbes.ts's watchEvidence, "settled" waits for the Ask button to read "Ask" again: while
// early evidence is shown the button says "Refining…", not "Searching…", and the answer is not settled yet.

/**
 * From now (just after the click on Ask): when the first evidence card appeared (early lexical evidence or the
 * result's) and when the answer settled (results shown, the Ask button back to "Ask"), in the page's
 * performance.now() milliseconds. Rejects on the app's alert or after `timeoutMs`.
 */
export async function watchSettled(timeoutMs: number): Promise<{
  firstEvidenceMs: number;
  firstEvidenceStage: string;
  resultMs: number;
  evidence: number;
}> {
  let first: { ms: number; stage: string } | null = null;
  const check = () => {
    if (!first) {
      const card = document.querySelector('[data-testid="evidence-early"], [data-testid="evidence"]');
      if (card) first = { ms: performance.now(), stage: card.getAttribute('data-testid') ?? '' };
    }
    const alert = document.querySelector('[role="alert"]');
    if (alert) throw new Error(`link-latency bench: the app says: ${alert.textContent?.trim()}`);
    const button = document.querySelector('[data-testid="ask"]');
    const results = document.querySelector('[data-testid="results"]');
    if (!results || !button || (button.textContent ?? '').trim() !== 'Ask') return null;
    const evidence = document.querySelectorAll('[data-testid="evidence"]').length;
    const now = performance.now();
    // A question with no evidence at all settles without a card: its first evidence is then its settled answer.
    return {
      firstEvidenceMs: first?.ms ?? now,
      firstEvidenceStage: first?.stage ?? 'none',
      resultMs: now,
      evidence,
    };
  };
  const now = check();
  if (now) return now;
  return new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => {
      try {
        const r = check();
        if (!r) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(r);
      } catch (error) {
        observer.disconnect();
        reject(error);
      }
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error('link-latency bench: no settled answer in time'));
    }, timeoutMs);
    observer.observe(document.body, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
    });
  });
}

/** Whether the app's service worker is active and controls the page (the shell then comes from its precache). */
export async function controlledByWorker(): Promise<boolean> {
  const reg = await navigator.serviceWorker.ready;
  return reg.active?.state === 'activated' && navigator.serviceWorker.controller !== null;
}
