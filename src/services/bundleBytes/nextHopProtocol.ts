// Which protocol a bundle's host answers over, from Resource Timing's nextHopProtocol of the source's own range
// requests ('h2', 'h3', 'http/1.1'; '' where the browser does not say). A host that answers one range a request costs
// a round trip a range over HTTP/1.1 (6 requests a host at once in a browser), but over HTTP/2 or HTTP/3 a browser
// sends ~100 requests at once on one connection, where a request costs its headers (tens of bytes once HPACK's table
// holds the repeated ones) and its answer's (docs/results/question-bytes.md, round twenty-three). The bundle's URL is
// the app's own origin, so the entry's protocol is exposed, in a dedicated worker too.

/** Entries of the URL that say no protocol before the watch gives up (a timeline that never says it, as Node's). */
const QUIET_ENTRIES = 8;

/** Whether a protocol sends many requests at once on one connection: HTTP/2 ('h2') or HTTP/3 ('h3', drafts 'h3-29'). */
export function multiplexes(protocol: string): boolean {
  return /^h[23](?:-|$)/.test(protocol);
}

/**
 * Calls `found` once with the protocol of the first Resource Timing entry of `url` that says one, and stops; returns a
 * function that stops the watch sooner. Through a PerformanceObserver rather than the timeline's buffer: the buffer
 * keeps 250 resource entries by default and drops the rest, and a worker that read another bundle before has filled
 * it, while an observer is given every entry. Nothing happens where the platform has no observer for resources.
 */
export function watchProtocol(url: string, found: (protocol: string) => void): () => void {
  if (
    typeof PerformanceObserver === 'undefined' ||
    !PerformanceObserver.supportedEntryTypes?.includes('resource')
  )
    return () => undefined;
  let name = url;
  try {
    // Entries are named by the absolute URL; a page's relative one is resolved as fetch() resolved it.
    name = new URL(url, globalThis.location?.href).href;
  } catch {
    // Not a URL on its own and no page to resolve it against: matched as given.
  }
  let quiet = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name !== name) continue;
      const protocol = (entry as PerformanceResourceTiming).nextHopProtocol;
      if (typeof protocol === 'string' && protocol !== '') {
        observer.disconnect();
        found(protocol);
        return;
      }
      if (++quiet >= QUIET_ENTRIES) {
        observer.disconnect();
        return;
      }
    }
  });
  observer.observe({ type: 'resource' });
  return () => observer.disconnect();
}
