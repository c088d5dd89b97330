// The Content-Security-Policy (issue 9, item 8): index.html carries exactly the page policy of src/tools/csp.ts,
// the page may connect only to its own origin, workers may reach the user's endpoints, and the headers add
// frame-ancestors 'none' (which only works as a header).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { META_CSP, PAGE_CSP, WORKER_CSP, securityHeaders } from '../../../src/tools/csp.ts';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe('content security policy', () => {
  it('index.html carries the page policy of src/tools/csp.ts', async () => {
    const html = await readFile(new URL('../../../index.html', import.meta.url), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    expect(meta?.[1]).toBe(META_CSP);
  });

  it('keeps the page to its own origin, without inline or eval scripts, plugins or framing', () => {
    const page = directives(PAGE_CSP);
    expect(page.get('default-src')).toEqual(["'self'"]);
    expect(page.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(page.get('connect-src')).toEqual(["'self'"]);
    expect(page.get('object-src')).toEqual(["'none'"]);
    expect(page.get('frame-ancestors')).toEqual(["'none'"]);
    // Ignored (with a console error) in a <meta>: only the header has it.
    expect(directives(META_CSP).has('frame-ancestors')).toBe(false);
  });

  it('lets workers reach a user-configured http(s) endpoint, still without eval', () => {
    const worker = directives(WORKER_CSP);
    expect(worker.get('connect-src')).toEqual(["'self'", 'http:', 'https:']);
    expect(worker.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  });

  it('sends the page policy with HTML and the worker policy with scripts', () => {
    expect(securityHeaders('/dist/index.html')['Content-Security-Policy']).toBe(PAGE_CSP);
    expect(securityHeaders('/')['X-Frame-Options']).toBe('DENY');
    expect(
      securityHeaders('/assets/kg.worker-abc123.js?worker_file&type=module')['Content-Security-Policy'],
    ).toBe(WORKER_CSP);
    expect(securityHeaders('/ort/ort-wasm-simd.wasm')).toEqual({});
  });
});
