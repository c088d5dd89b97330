// The privacy rule — no request leaves the browser except to the endpoint the user set — is enforced for every
// spec by the guard of test/e2e/lib/fixtures.ts. This spec keeps that guard from passing vacuously: a request the
// app's LLM worker sends to an endpoint the test did not allow is recorded, blocked before it reaches the server,
// and makes the guard's check (the one every test ends with) fail; a top-level navigation elsewhere is blocked
// too; and the endpoint the test did allow (the scripted LLM server) is reached normally.
import type { Page } from '@playwright/test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { openApp } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

/** A loopback server the test does not allow: it records every request that reaches it. */
async function startStranger(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
    res.end(JSON.stringify({ data: [{ id: 'scripted-model' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    // Chromium may hold a bare TCP connection open (a preconnect, no request on it): drop it rather than wait.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function testConnection(page: Page, baseUrl: string): Promise<string | null> {
  await page.goto('/#settings');
  await page.waitForSelector('[name="llm-base-url"]');
  await page.fill('[name="llm-base-url"]', baseUrl);
  await page.fill('[name="llm-model"]', 'scripted-model');
  await page.click('[data-testid="llm-test"]');
  await page.waitForSelector('[data-testid="llm-diagnosis"]');
  return page.getAttribute('[data-testid="llm-diagnosis"]', 'data-status');
}

test('privacy guard: a request to an origin the test did not allow is blocked and fails the check', async ({
  page,
  origin,
  privacy,
  log,
}) => {
  const stranger = await startStranger();
  const llm = await startScriptedLlmServer();
  privacy.allowOrigin(llm.url);
  try {
    await openApp(page, origin);
    expect(privacy.foreignRequests, 'the app alone sent a request elsewhere').toEqual([]);

    // The user's endpoint, allowed by the test: the worker reaches it.
    expect(await testConnection(page, llm.baseUrl), 'test connection to the allowed endpoint').toBe('ok');
    expect(llm.requests.length, 'the allowed endpoint saw no request').toBeGreaterThan(0);
    expect(privacy.foreignRequests).toEqual([]);
    privacy.check();

    // Another endpoint, not allowed: the worker's request is recorded and blocked before it leaves the browser.
    const status = await testConnection(page, `${stranger.url}/v1`);
    log(`test connection to a foreign endpoint: diagnosis "${status}"; recorded ${privacy.foreignRequests}`);
    expect(status, 'a blocked endpoint was diagnosed as reachable').not.toBe('ok');
    expect(privacy.foreignRequests.some((url) => url.startsWith(`${stranger.url}/`))).toBe(true);
    expect(stranger.hits, 'a request reached the foreign server').toEqual([]);
    expect(() => privacy.check()).toThrow(
      new RegExp(`requests left the app's origin: ${stranger.url.replace(/[.]/g, '\\.')}/`),
    );

    // A page navigated elsewhere is stopped as well.
    await expect(page.goto(`${stranger.url}/navigated`)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    expect(privacy.foreignRequests).toContain(`${stranger.url}/navigated`);
    expect(stranger.hits, 'a navigation reached the foreign server').toEqual([]);

    // Only what this spec provoked went elsewhere: with it taken out, the check every test ends with passes.
    const provoked = privacy.take(stranger.url);
    expect(provoked.length).toBeGreaterThanOrEqual(2);
    privacy.check();
  } finally {
    await stranger.close();
    await llm.close();
  }
});
