// The Library view's stall watchdog: a stage quiet for 60 s is reported as stalled (by name, with the time of its
// last progress), and the report is withdrawn when progress resumes or the run ends.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STALL_MS, StallWatchdog, type Stall } from '../../../src/ui/state/watchdog.ts';

describe('StallWatchdog', () => {
  let reports: (Stall | null)[];
  let dog: StallWatchdog;

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-22T22:00:00Z'));
    reports = [];
    dog = new StallWatchdog((stall) => reports.push(stall));
  });
  afterEach(() => {
    dog.stop();
    vi.useRealTimers();
  });

  it('waits 60 s by default', () => {
    expect(STALL_MS).toBe(60_000);
  });

  it('reports a stage that has been quiet for 60 s, naming it and when it last moved', () => {
    dog.progress('embed', 10);
    const lastMoved = Date.now();
    vi.advanceTimersByTime(59_999);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reports).toEqual([{ stage: 'embed', since: lastMoved }]);
  });

  it('progress keeps it quiet; a repeated count is not progress', () => {
    dog.progress('embed', 10);
    for (let i = 1; i <= 5; i++) {
      vi.advanceTimersByTime(50_000);
      dog.progress('embed', 10 + i);
    }
    expect(reports).toEqual([]);
    // The same count again (a stage re-reporting where it stands) does not restart the clock.
    vi.advanceTimersByTime(30_000);
    dog.progress('embed', 15);
    vi.advanceTimersByTime(30_000);
    expect(reports.map((r) => r?.stage)).toEqual(['embed']);
  });

  it('a new stage restarts the clock and is the one named', () => {
    dog.progress('store', 256);
    vi.advanceTimersByTime(40_000);
    dog.progress('graph', 0);
    vi.advanceTimersByTime(40_000);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(20_000);
    expect(reports.map((r) => r?.stage)).toEqual(['graph']);
  });

  it('withdraws the stall when progress resumes, and reports it again if the stage stops again', () => {
    dog.progress('parse', 0);
    vi.advanceTimersByTime(STALL_MS);
    dog.progress('parse', 1);
    expect(reports.map((r) => r?.stage ?? null)).toEqual(['parse', null]);
    vi.advanceTimersByTime(STALL_MS);
    expect(reports.map((r) => r?.stage ?? null)).toEqual(['parse', null, 'parse']);
  });

  it('stop() withdraws a stall and nothing fires after it', () => {
    dog.progress('embed', 3);
    vi.advanceTimersByTime(STALL_MS);
    dog.stop();
    expect(reports.map((r) => r?.stage ?? null)).toEqual(['embed', null]);
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(reports).toHaveLength(2);
    // Stopping when nothing is stalled reports nothing.
    dog.progress('embed', 4);
    dog.stop();
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(reports).toHaveLength(2);
  });
});
