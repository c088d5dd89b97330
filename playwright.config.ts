// The end-to-end suite (`npm run test:e2e` builds, then runs `playwright test`): the specs of test/e2e/specs in
// Debian's Chromium (never a downloaded browser), against the built app as `npm start` serves it — `vite preview`
// with the cross-origin isolation and CSP headers of vite.config.ts. Fixtures: test/e2e/lib/fixtures.ts.
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DIST } from './test/e2e/lib/browser.ts';

if (!existsSync(CHROMIUM_PATH)) {
  throw new Error(
    `e2e: no Chromium at ${CHROMIUM_PATH}; install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
  );
}

// Two tiers (README, "How the tests are checked"): a test with `@scale` in its title is the scale tier's — a long
// scale or hostile case of which a smaller case in the default tier checks every behaviour. `npm test` leaves them
// out; `npm run test:scale` (TEST_TIER=scale) runs only them.
const SCALE_TIER = process.env.TEST_TIER === 'scale';

export default defineConfig({
  testDir: 'test/e2e/specs',
  testMatch: '*.spec.ts',
  ...(SCALE_TIER ? { grep: /@scale/ } : { grepInvert: /@scale/ }),
  // Out of the source tree's way: .cache/ is ignored by git, eslint and prettier.
  outputDir: '.cache/e2e/results',
  reporter: [['list'], ['html', { open: 'never', outputFolder: '.cache/e2e/report' }]],
  // Indexing is CPU-bound (parse, embed, PageRank in workers): on the 2-core CI machine two tests at once slow
  // each other past their waits. E2E_WORKERS=2 where there are cores to spare.
  workers: Number(process.env.E2E_WORKERS ?? 1),
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Per spec as they need (test.setTimeout at the top of a file); this is for the rest. A spec's time-out is the
  // only bound on its waits: a wait on the app's state has no limit of its own (actions and waitForSelector have
  // none by default, and `expect` gets none below), because how long indexing takes depends on the machine's
  // load, not on the app. A hung app still fails, at the spec's time-out.
  timeout: 120_000,
  expect: { timeout: 0 },
  use: {
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    viewport: { width: 1200, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  webServer: {
    // Port 0: a free loopback port, so runs on one machine never collide; the origin vite prints is handed to the
    // workers as E2E_ORIGIN (the named group of `wait`). --outDir: E2E_DIST, the same folder the specs read.
    command: `node node_modules/vite/bin/vite.js preview --port 0 --strictPort --outDir "${DIST}"`,
    wait: { stdout: /Local:\s+(?<e2e_origin>http:\/\/127\.0\.0\.1:\d+)/ },
    timeout: 60_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
