// `cli themes <bundle> --global` (issue 48): the Ask view's written answer over the themes from the command line,
// against the scripted OpenAI-compatible server on loopback. The plan is printed before the first request; the run
// sends exactly the planned calls; the answer, its citations and the calls and tokens spent are printed; the key
// (from a file, as `cli ask` reads it) never appears in the output; a bad base URL is refused naming the flag.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { run as themes } from '../../../src/cli/themes.ts';
import { captureCli as capture } from '../../support/captureCli.ts';
import { isGlobalMap, isGlobalReduce, scriptedGlobal } from '../../support/scriptedGlobal.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const BUNDLE = join(import.meta.dirname, '../../fixtures/bundles/repo-docs.pages.bundle');
const KEY = 'sk-themes-global-7777777777';

let dir = '';
let server: ScriptedLlmServer;
let keyFile = '';
/** stdout and the server's requests, in the order they happened. */
let events: Array<{ kind: 'out'; text: string } | { kind: 'request' }> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-themes-global-'));
  keyFile = join(dir, 'llm.key');
  await writeFile(keyFile, `${KEY}\n`, { mode: 0o600 });
  server = await startScriptedLlmServer({
    apiKey: KEY,
    // The first responder only notes when a request arrived, then passes it on.
    responders: [() => (events.push({ kind: 'request' }), undefined), scriptedGlobal()],
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  events = [];
});

const endpoint = () => ['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model'];
const chats = () => server.requests.filter((r) => r.path.endsWith('/chat/completions'));

/** Runs the command with stdout recorded into `events` (so its order against the requests is known). */
async function runLogged(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => {
    events.push({ kind: 'out', text: String(c) });
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    const code = await themes(args);
    const out = events.flatMap((x) => (x.kind === 'out' ? [x.text] : [])).join('');
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

interface ThemeJson {
  label: string;
  passages: Array<{ chunkId: string; text: string }>;
}

describe('cli themes --global', () => {
  it('prints the plan before any request, sends exactly its calls, and prints the answer and its spend', async () => {
    // The themes as `cli themes --json` prints them: with κ = 1 every theme with a passage is mapped, plus one reduce.
    const listed = await capture(() => themes([BUNDLE, '--json']));
    expect(listed.code, listed.err).toBe(0);
    const all = JSON.parse(listed.out) as ThemeJson[];
    const withPassages = all.filter((t) => t.passages.length > 0);
    expect(withPassages.length).toBeGreaterThan(2);

    const run = await runLogged([
      BUNDLE,
      '--global',
      '--kappa',
      '1',
      ...endpoint(),
      '--llm-key-file',
      keyFile,
    ]);
    expect(run.code, run.err).toBe(0);
    const plan =
      /plan: (\d+) of the library's (\d+) themes .*?: (\d+) calls .*?, (\d+) tokens in, at most (\d+) out/.exec(
        run.out,
      );
    expect(plan, run.out).not.toBeNull();
    const [, mapped, of, calls] = plan!.slice(0, 4).map(Number);
    expect(mapped).toBe(withPassages.length);
    expect(of).toBe(all.length);
    expect(calls).toBe(withPassages.length + 1);

    // The plan was on stdout before the first request reached the server.
    const firstRequest = events.findIndex((x) => x.kind === 'request');
    const planAt = events.findIndex((x) => x.kind === 'out' && x.text.includes('plan: '));
    expect(planAt).toBeGreaterThanOrEqual(0);
    expect(firstRequest).toBeGreaterThan(planAt);

    // Exactly the planned calls: one map per mapped theme, one reduce, all with the file's key.
    const sent = chats();
    expect(sent).toHaveLength(calls);
    expect(sent.filter((r) => isGlobalMap(r.body?.messages?.[0]?.content ?? ''))).toHaveLength(mapped);
    expect(sent.filter((r) => isGlobalReduce(r.body?.messages?.[0]?.content ?? ''))).toHaveLength(1);
    expect(new Set(sent.map((r) => r.authorization))).toEqual(new Set([`Bearer ${KEY}`]));

    // The answer: the scripted reduce joins every map's line, a sentence of one of its theme's passages followed by
    // that passage's number. The passages and their numbers as the plan alone prints them (--json, no endpoint).
    const planOnly = await capture(() => themes([BUNDLE, '--global', '--kappa', '1', '--json']));
    const { passages } = JSON.parse(planOnly.out.split('\n')[0]) as {
      passages: Array<{ n: number; text: string; docTitle: string; theme: string }>;
    };
    const answer = /^answer: (.*)$/m.exec(run.out)?.[1] ?? '';
    const cited = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited.length, answer).toBeGreaterThanOrEqual(2);
    const citations = run.out.slice(run.out.indexOf('citations:'));
    for (const n of cited) {
      const passage = passages.find((p) => p.n === n)!;
      const sentence = new RegExp(`([^\\]]*?)\\s*\\[${n}\\]`).exec(answer)![1].trim();
      expect(passage.text).toContain(sentence);
      // Each citation is listed with its document and its theme's label.
      expect(citations).toContain(`[${n}] ${passage.docTitle} (theme: ${passage.theme})`);
      expect(withPassages.map((t) => t.label)).toContain(passage.theme);
    }

    // The spend: the calls sent, and the prompt tokens the server reported (its count: a quarter of each body).
    const spent = /spent: (\d+) calls, (\d+) tokens in, (\d+) out/.exec(run.out);
    expect(spent, run.out).not.toBeNull();
    expect(Number(spent![1])).toBe(sent.length);
    const reported = sent.reduce((n, r) => n + Math.ceil(JSON.stringify(r.body).length / 4), 0);
    expect(Number(spent![2])).toBe(reported);
    expect(Number(spent![3])).toBeGreaterThan(0);

    expect(run.out).not.toContain(KEY);
    expect(run.err).not.toContain(KEY);
  });

  it('with --json prints the plan line, then the answer line', async () => {
    const run = await runLogged([BUNDLE, '--global', '--json', ...endpoint(), '--llm-key-file', keyFile]);
    expect(run.code, run.err).toBe(0);
    const [first, second] = run.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const plan = first.plan as { calls: number; themes: number; kappa: number };
    expect(plan.kappa).toBe(0.8);
    expect(chats()).toHaveLength(plan.calls);
    expect(second.sent).toBe(true);
    expect((second.spent as { calls: number }).calls).toBe(plan.calls);
    expect(String(second.answer)).toMatch(/\[\d+\]/);
    expect(run.out).not.toContain(KEY);
  });

  it('without --llm-base-url prints the plan and sends nothing', async () => {
    const run = await runLogged([BUNDLE, '--global']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/plan: \d+ of the library's \d+ themes/);
    expect(run.out).toContain('nothing was sent');
    expect(run.out).not.toContain('answer:');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a bad base URL, a key on the command line and a bad κ, naming the flag, and sends nothing', async () => {
    const bad = await capture(() =>
      themes([BUNDLE, '--global', '--llm-base-url', 'localhost:1/v1', '--llm-model', 'm']),
    );
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--llm-base-url must be an http:\/\/ or https:\/\/ URL, got "localhost:1\/v1"/);
    const key = await capture(() => themes([BUNDLE, '--global', ...endpoint(), '--llm-key', 'sk-typed-in']));
    expect(key.code).toBe(2);
    expect(key.err).toMatch(/--llm-key is no longer accepted/);
    expect(key.err).toMatch(/CONCEPTRAG_LLM_API_KEY/);
    expect(key.err).not.toContain('sk-typed-in');
    const kappa = await capture(() => themes([BUNDLE, '--global', '--kappa', '1.5']));
    expect(kappa.code).toBe(2);
    expect(kappa.err).toMatch(/--kappa must be a fraction/);
    const noModel = await capture(() => themes([BUNDLE, '--global', '--llm-base-url', server.baseUrl]));
    expect(noModel.code).toBe(2);
    expect(noModel.err).toMatch(/--llm-model/);
    expect(server.requests).toHaveLength(0);
  });

  it('says which endpoint failed when the server refuses the key', async () => {
    const wrong = join(dir, 'wrong.key');
    await writeFile(wrong, 'sk-wrong-888888888\n');
    const run = await runLogged([BUNDLE, '--global', ...endpoint(), '--llm-key-file', wrong]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/plan: /);
    expect(run.err).toContain(server.baseUrl);
    expect(run.err).not.toContain('sk-wrong-888888888');
  });
});
