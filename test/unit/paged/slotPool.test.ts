// The slots a block store's loads share (slotPool.ts): never more out than the source said, the early evidence's
// (foreground) jobs sent before the walk's (background) queued ones, and a refusal drops every queued job.
import { describe, expect, it } from 'vitest';
import { SlotPool } from '../../../src/core/paged/slotPool.ts';

/** A job that logs its start and ends when `release` is called with its name. */
function gated(log: string[], out: { now: number; most: number }) {
  const waiting = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<void>((done) => {
      log.push(name);
      out.most = Math.max(out.most, ++out.now);
      waiting.set(name, () => {
        out.now--;
        done();
      });
    });
  const release = async (name: string) => {
    waiting.get(name)!();
    // The pool takes the next job once this one's promise has settled.
    for (let k = 0; k < 5; k++) await Promise.resolve();
  };
  return { job, release };
}

describe('SlotPool', () => {
  it('keeps at most its slots out and sends a queued foreground job before every queued background one', async () => {
    const log: string[] = [];
    const out = { now: 0, most: 0 };
    const { job, release } = gated(log, out);
    const pool = new SlotPool(() => 2);
    const done = [
      pool.run(job('b1'), true),
      pool.run(job('b2'), true),
      pool.run(job('b3'), true),
      pool.run(job('b4'), true),
    ];
    // Queued after the background's, sent before the two still waiting.
    done.push(pool.run(job('f1')), pool.run(job('f2')));
    expect(log).toEqual(['b1', 'b2']);
    await release('b1');
    expect(log).toEqual(['b1', 'b2', 'f1']);
    await release('b2');
    await release('f1');
    expect(log).toEqual(['b1', 'b2', 'f1', 'f2', 'b3']);
    await release('f2');
    await release('b3');
    await release('b4');
    await Promise.all(done);
    expect(log).toEqual(['b1', 'b2', 'f1', 'f2', 'b3', 'b4']);
    expect(out.most).toBe(2);
  });

  it('sends a queued idle job (the hash pages read ahead) after every queued job of the other classes', async () => {
    const log: string[] = [];
    const { job, release } = gated(log, { now: 0, most: 0 });
    const pool = new SlotPool(() => 1);
    const done = [pool.run(job('f1')), pool.run(job('i1'), 'idle'), pool.run(job('b1'), true)];
    done.push(pool.run(job('f2')));
    await release('f1');
    await release('f2');
    await release('b1');
    await release('i1');
    await Promise.all(done);
    expect(log).toEqual(['f1', 'f2', 'b1', 'i1']);
  });

  it('drops every queued job of either class with the error it is given; those out finish', async () => {
    const log: string[] = [];
    const { job, release } = gated(log, { now: 0, most: 0 });
    const pool = new SlotPool(() => 1);
    const running = pool.run(job('f1'));
    const queued = [pool.run(job('b1'), true), pool.run(job('f2'))];
    const refused = new Error('refused');
    pool.drop(refused);
    for (const q of queued) await expect(q).rejects.toBe(refused);
    await release('f1');
    await running;
    expect(log).toEqual(['f1']);
    // The pool goes on with jobs queued after the drop.
    const later = pool.run(job('f3'));
    await Promise.resolve();
    expect(log).toEqual(['f1', 'f3']);
    await release('f3');
    await later;
  });

  it('sends a typed question’s reads (ahead) after the walk’s and before the idle pages, and first once a question begins', async () => {
    const log: string[] = [];
    const { job, release } = gated(log, { now: 0, most: 0 });
    const pool = new SlotPool(() => 1);
    const done = [pool.run(job('f1')), pool.run(job('i1'), 'idle'), pool.run(job('a1'), 'ahead')];
    done.push(pool.run(job('b1'), true), pool.run(job('a2'), 'ahead'));
    await release('f1');
    expect(log).toEqual(['f1', 'b1']);
    await release('b1');
    expect(log).toEqual(['f1', 'b1', 'a1']);
    // A question begins: its own requests are queued, but what it waits on first (a2's blocks) goes before them.
    done.push(pool.run(job('f2')), pool.run(job('b2'), true));
    pool.promoteAhead();
    await release('a1');
    expect(log).toEqual(['f1', 'b1', 'a1', 'a2']);
    await release('a2');
    await release('f2');
    await release('b2');
    await release('i1');
    await Promise.all(done);
    expect(log).toEqual(['f1', 'b1', 'a1', 'a2', 'f2', 'b2', 'i1']);
  });
});
