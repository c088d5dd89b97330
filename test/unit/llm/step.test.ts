// One JSON step against the scripted OpenAI-compatible server on loopback: a valid reply in one call, a malformed
// one repaired by the second call (which carries the problems), two malformed replies failing with the reason,
// transport failures thrown rather than reported as a failed step, and usage counted per call.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmClient } from '../../../src/core/llm/client.ts';
import { runJsonStep, type Checked } from '../../../src/core/llm/step.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const MARK = 'STEP-TEST';

/** The step's contract: an object {"answer": non-empty string}. */
function validate(value: unknown): Checked<string> {
  const answer = (value as { answer?: unknown }).answer;
  return typeof answer === 'string' && answer
    ? { ok: true, value: answer }
    : { ok: false, errors: ['"answer" must be a non-empty string'] };
}

let server: ScriptedLlmServer;
/** Replies the responder gives, in order, to requests that carry MARK. */
let replies: string[] = [];

beforeAll(async () => {
  server = await startScriptedLlmServer({
    responders: [
      (messages) => (messages.some((m) => m.content.includes(MARK)) ? replies.shift() : undefined),
    ],
  });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function client(): LlmClient {
  return new LlmClient(
    {
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      concurrency: 1,
      priceInPerM: 0,
      priceOutPerM: 0,
    },
    { maxRetries: 0 },
  );
}

const step = {
  name: 'test step',
  messages: [{ role: 'user' as const, content: `${MARK}: say hi` }],
  validate,
};

describe('runJsonStep', () => {
  it('returns the validated value of a good reply after one call', async () => {
    replies = ['Sure: ```json\n{"answer": "hi"}\n```'];
    const out = await runJsonStep(client(), step);
    expect(out).toMatchObject({ ok: true, value: 'hi', attempts: 1 });
    expect(out.usage.calls).toBe(1);
    expect(server.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
  });

  it('repairs a reply that breaks the contract with one more call that names the problem', async () => {
    replies = ['{"answer": ""}', '{"answer": "hello"}'];
    const out = await runJsonStep(client(), step);
    expect(out).toMatchObject({ ok: true, value: 'hello', attempts: 2 });
    const second = server.requests.filter((r) => r.path === '/v1/chat/completions')[1].body!.messages!;
    expect(second.at(-2)).toEqual({ role: 'assistant', content: '{"answer": ""}' });
    expect(second.at(-1)!.content).toContain('"answer" must be a non-empty string');
    expect(out.usage.calls).toBe(2);
  });

  it('fails with the step name and the reason after two malformed replies', async () => {
    replies = ['no json at all', '{"answer": 3'];
    const out = await runJsonStep(client(), step);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.reason).toMatch(
        /^test step: malformed output twice: the reply (is not valid JSON|contains no JSON)/,
      );
      expect(out.attempts).toBe(2);
      expect(out.usage.calls).toBe(2);
    }
  });

  it('throws on a transport failure instead of reporting the step failed', async () => {
    replies = [];
    server.script({ kind: 'unauthorized', when: MARK });
    await expect(runJsonStep(client(), step)).rejects.toThrow();
  });

  it('throws when cancelled', async () => {
    replies = ['{"answer": "late"}'];
    server.setLatency(2000);
    const stop = new AbortController();
    const running = runJsonStep(client(), step, { signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await expect(running).rejects.toThrow();
    server.setLatency(0);
  });
});
