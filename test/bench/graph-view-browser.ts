// The concept-graph view on a large library, in headless Chromium through the built app (issue 13: "must stay
// responsive on the MuSiQue library"). The bundle is opened read-only (?bundle=<url>#graph), then:
//   - time to first frame: from the click on "Show the walk" to sigma's first frame of that question's graph
//     (the canvas's data-first-frame); the first question includes opening the bundle and loading the question
//     model, the next ones are warm (p50 / max printed), with the walk's own time in the query worker;
//   - frame rate while panning: a mouse drag that moves on every frame (sigma's own camera handling, as a person
//     pans), requestAnimationFrame ticks counted during it, for the question's graph and for the library map (top
//     concepts by PageRank, then a concept found by a typed word and its neighbours);
//   - the WebGL renderer Chromium reports: here it is SwiftShader, software GL on the CPU.
// Usage: npx vite build --outDir /work/dist-graph && E2E_DIST=/work/dist-graph \
//          node --import tsx test/bench/graph-view-browser.ts <musique.bundle> [--questions qa.jsonl] [--count 5]
//          [--screenshot out.png]   (the first question's graph)   [--search "roman empire"]   (the library search)
//   The bundle comes from `npm run cli -- index /work/shared/bench/musique/corpus.jsonl --out x.bundle`.
//   Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { access, readFile, rm, stat, symlink } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: node --import tsx test/bench/graph-view-browser.ts <x.bundle> [--questions qa.jsonl] [--count 5] ' +
  '[--screenshot out.png] [--search word]';
const STEP_TIMEOUT_MS = Number(process.env.GRAPH_BENCH_TIMEOUT_MS ?? 5 * 60_000);

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Click on "Show the walk" → sigma's first frame of the new graph (ms), and what the summary says. */
async function drawQuestion(page: Page, question: string): Promise<{ ms: number; summary: string }> {
  await page.fill('[data-testid="graph-question"]', question);
  // The previous graph's frame mark is cleared when a new graph is set: wait for a mark after the click.
  const clicked = await page.evaluate(() => performance.now());
  await page.click('[data-testid="graph-draw"]');
  const frame = await page.waitForFunction(
    (after) => {
      const alert = document.querySelector('[role="alert"]');
      if (alert) throw new Error(`graph bench: the app says: ${alert.textContent?.trim()}`);
      const el = document.querySelector('[data-testid="graph-canvas"]');
      const at = Number(el?.getAttribute('data-first-frame') ?? NaN);
      return at > after ? at : null;
    },
    clicked,
    { timeout: STEP_TIMEOUT_MS, polling: 50 },
  );
  const at = (await frame.jsonValue()) as number;
  const summary =
    (await page.textContent('[data-testid="graph-summary"]'))?.replace(/\s+/g, ' ').trim() ?? '';
  return { ms: at - clicked, summary };
}

/**
 * Pans the canvas for `frames` animation frames: a mouse drag whose pointer moves on every frame (mousedown on the
 * canvas, one mousemove per requestAnimationFrame, mouseup), so sigma's own mouse handling moves the camera and
 * redraws on every frame, as under a person's steady drag. Returns frames per second over the drag and the longest
 * gap between two frames. (Playwright's page.mouse moves arrive through the DevTools protocol at ~25 a second on
 * this loaded machine, slower than the frames: they would measure the input pipe, not the drawing.)
 */
async function pan(page: Page, frames = 300): Promise<{ fps: number; worstMs: number; seconds: number }> {
  return page.evaluate(async (count) => {
    const el = document.querySelector('[data-testid="graph-canvas"]') as HTMLElement;
    const box = el.getBoundingClientRect();
    const x0 = box.left + box.width * 0.5;
    const y0 = box.top + box.height * 0.5;
    const at = (i: number) => ({
      clientX: x0 + box.width * 0.3 * Math.sin(i / 25),
      clientY: y0 + box.height * 0.2 * Math.sin(i / 40),
      bubbles: true,
      button: 0,
    });
    el.querySelector('canvas:last-of-type')?.dispatchEvent(new MouseEvent('mousedown', at(0)));
    const times: number[] = [];
    await new Promise<void>((done) => {
      const tick = (t: number) => {
        times.push(t);
        if (times.length > count) return done();
        document.dispatchEvent(new MouseEvent('mousemove', at(times.length)));
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    document.dispatchEvent(new MouseEvent('mouseup', at(count)));
    const seconds = (times[times.length - 1] - times[0]) / 1000;
    let worst = 0;
    for (let i = 1; i < times.length; i++) worst = Math.max(worst, times[i] - times[i - 1]);
    return { fps: (times.length - 1) / seconds, worstMs: worst, seconds };
  }, frames);
}

/** Runs `act` (a click) and returns the ms from just before it to the canvas's first frame of the new drawing. */
async function frameAfter(page: Page, act: () => Promise<void>): Promise<number> {
  const clicked = await page.evaluate(() => performance.now());
  await act();
  const frame = await page
    .waitForFunction(
      (after) => {
        const alert = document.querySelector('[role="alert"]');
        if (alert) throw new Error(`graph bench: the app says: ${alert.textContent?.trim()}`);
        const at = Number(
          document.querySelector('[data-testid="graph-canvas"]')?.getAttribute('data-first-frame') ?? NaN,
        );
        return at > after ? at : null;
      },
      clicked,
      { timeout: STEP_TIMEOUT_MS, polling: 50 },
    )
    .catch(async (error: unknown) => {
      const state = await page.evaluate(() => ({
        summary: document.querySelector('[data-testid="graph-summary"]')?.textContent,
        frame: document.querySelector('[data-testid="graph-canvas"]')?.getAttribute('data-first-frame'),
      }));
      throw new Error(`graph bench: no new frame after ${clicked} (${JSON.stringify(state)})`, {
        cause: error,
      });
    });
  return ((await frame.jsonValue()) as number) - clicked;
}

/** Whether the camera moved during the pan (the drag reached sigma): compares a node's place before and after. */
async function nodePlace(page: Page): Promise<string | null> {
  await page.waitForTimeout(400);
  const li = page.locator('[data-testid="graph-nodes"] li').first();
  return `${await li.getAttribute('data-x')},${await li.getAttribute('data-y')}`;
}

async function main(): Promise<void> {
  const given = process.argv
    .slice(2)
    .find((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!given) throw new Error(USAGE);
  const bundle = resolve(given);
  const info = await stat(bundle).catch(() => null);
  if (!info?.isFile()) throw new Error(`graph bench: ${bundle} does not exist or is not a file`);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`graph bench: no built app at ${dist} (build it, or set E2E_DIST)`);
  });
  const count = Number(arg('count', '5'));
  const qa = arg('questions', join(root, '..', 'shared', 'bench', 'musique', 'questions.jsonl'));
  const questions = (await readFile(qa, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => String((JSON.parse(l) as { question: unknown }).question))
    .slice(0, count + 1);
  const name = `bench-graph-${process.pid}.bundle`;
  await symlink(bundle, join(dist, name));
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'graph-view');
  const page = harness.page;
  try {
    console.log(`bundle ${bundle}: ${(info.size / 1048576).toFixed(2)} MB; app from ${dist}; load ${load()}`);
    await page.goto(`${server.origin}/?bundle=/${name}#graph`, { waitUntil: 'load' });
    const renderer = await page.evaluate(() => {
      const gl =
        document.createElement('canvas').getContext('webgl2') ??
        document.createElement('canvas').getContext('webgl');
      if (!gl) return 'no WebGL';
      const ext = gl.getExtension('WEBGL_debug_renderer_info');
      return String(ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    });
    console.log(`WebGL renderer: ${renderer}`);

    const first = await drawQuestion(page, questions[0]);
    console.log(
      `first question (cold: bundle opened, question model loaded): first frame ${first.ms.toFixed(0)} ms`,
    );
    console.log(`  ${first.summary}`);
    const shot = process.argv.includes('--screenshot') ? arg('screenshot', '') : '';
    if (shot) {
      await page.waitForTimeout(500);
      await page.locator('main').screenshot({ path: shot });
      console.log(`  screenshot: ${shot}`);
    }
    const nodes = await page.getAttribute('[data-testid="graph-canvas"]', 'data-nodes');
    const edges = await page.getAttribute('[data-testid="graph-canvas"]', 'data-edges');
    console.log(`  drawn: ${nodes} nodes, ${edges} edges`);
    const warm: number[] = [];
    for (const q of questions.slice(1)) {
      const r = await drawQuestion(page, q);
      warm.push(r.ms);
      console.log(`warm question: first frame ${r.ms.toFixed(0)} ms — ${r.summary}; load ${load()}`);
    }
    if (warm.length) {
      const sorted = [...warm].sort((a, b) => a - b);
      console.log(
        `warm first frame over ${warm.length} questions: p50 ${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms`,
      );
    }
    const before1 = await nodePlace(page);
    const p1 = await pan(page);
    const moved1 = before1 !== (await nodePlace(page));
    console.log(
      `panning the question's graph: ${p1.fps.toFixed(1)} frames/s over ${p1.seconds.toFixed(1)} s, longest frame gap ${p1.worstMs.toFixed(0)} ms; camera moved: ${moved1}; load ${load()}`,
    );

    const libraryMs = await frameAfter(page, () => page.click('[data-testid="graph-side-library"]'));
    const summary = (await page.textContent('[data-testid="graph-summary"]'))?.replace(/\s+/g, ' ').trim();
    console.log(`library map: first frame ${libraryMs.toFixed(0)} ms — ${summary}`);
    const before2 = await nodePlace(page);
    const p2 = await pan(page);
    const moved2 = before2 !== (await nodePlace(page));
    console.log(
      `panning the library map: ${p2.fps.toFixed(1)} frames/s over ${p2.seconds.toFixed(1)} s, longest frame gap ${p2.worstMs.toFixed(0)} ms; camera moved: ${moved2}; load ${load()}`,
    );
    const word = arg('search', 'roman empire');
    await page.fill('[data-testid="graph-search"]', word);
    const searchMs = await frameAfter(page, () => page.click('[data-testid="graph-find"]'));
    const found = (await page.textContent('[data-testid="graph-summary"]'))?.replace(/\s+/g, ' ').trim();
    console.log(`library search "${word}": first frame ${searchMs.toFixed(0)} ms — ${found}`);
    harness.assertPrivate('graph bench');
  } finally {
    await close();
    await server.close();
    await rm(join(dist, name), { force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
