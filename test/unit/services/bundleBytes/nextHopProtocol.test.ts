// Which protocol a bundle's host answers over (src/services/bundleBytes/nextHopProtocol.ts): HTTP/2 and HTTP/3 send
// many requests at once on a connection, HTTP/1.1 does not; the protocol is read from the Resource Timing entries of
// the bundle's own URL through an observer (given every entry, even once the timeline's buffer is full).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { multiplexes, watchProtocol } from '../../../../src/services/bundleBytes/nextHopProtocol.ts';

describe('multiplexes', () => {
  it('says HTTP/2 and HTTP/3 (and its drafts) send many requests on a connection, nothing else', () => {
    for (const p of ['h2', 'h3', 'h3-29']) expect(multiplexes(p)).toBe(true);
    for (const p of ['http/1.1', 'http/1.0', '', 'h2c-ish', 'hq', 'h20']) expect(multiplexes(p)).toBe(false);
  });
});

/** A PerformanceObserver the test feeds entries to, as a browser would after each response. */
class FakeObserver {
  static supportedEntryTypes = ['resource'];
  static live: FakeObserver[] = [];
  connected = false;
  constructor(private readonly callback: (list: { getEntries(): unknown[] }) => void) {}
  observe(): void {
    this.connected = true;
    FakeObserver.live.push(this);
  }
  disconnect(): void {
    this.connected = false;
  }
  static deliver(...entries: Array<{ name: string; nextHopProtocol: string }>): void {
    for (const o of FakeObserver.live) if (o.connected) o.callback({ getEntries: () => entries });
  }
}

describe('watchProtocol', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeObserver.live = [];
  });

  it("gives the first protocol said by an entry of the bundle's URL, then stops watching", () => {
    vi.stubGlobal('PerformanceObserver', FakeObserver);
    const found = vi.fn();
    watchProtocol('https://host.example/lib.bundle', found);
    FakeObserver.deliver(
      { name: 'https://host.example/app.js', nextHopProtocol: 'http/1.1' },
      { name: 'https://host.example/lib.bundle', nextHopProtocol: '' },
    );
    expect(found).not.toHaveBeenCalled();
    FakeObserver.deliver({ name: 'https://host.example/lib.bundle', nextHopProtocol: 'h2' });
    expect(found).toHaveBeenCalledWith('h2');
    expect(FakeObserver.live[0].connected).toBe(false);
  });

  it('gives up after a few entries that say no protocol, and stops when told', () => {
    vi.stubGlobal('PerformanceObserver', FakeObserver);
    const found = vi.fn();
    watchProtocol('https://host.example/lib.bundle', found);
    for (let i = 0; i < 8; i++)
      FakeObserver.deliver({ name: 'https://host.example/lib.bundle', nextHopProtocol: '' });
    expect(FakeObserver.live[0].connected).toBe(false);
    const stop = watchProtocol('https://host.example/lib.bundle', found);
    stop();
    FakeObserver.deliver({ name: 'https://host.example/lib.bundle', nextHopProtocol: 'h3' });
    expect(found).not.toHaveBeenCalled();
  });

  it('does nothing where there is no observer of resources', () => {
    vi.stubGlobal('PerformanceObserver', undefined);
    expect(() => watchProtocol('https://host.example/lib.bundle', () => undefined)()).not.toThrow();
  });
});
