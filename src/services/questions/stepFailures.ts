// Failed questions in a benchmark or an evaluation: a question whose LLM step fails (a small local model returns
// malformed JSON twice, the endpoint times out) is scored as failed and the run goes on; its reason is kept with
// the question and counted with the others, so a report says how many questions failed and why.

/**
 * The kind of a failure, for counting: the step's path without the details of one reply. "logical: plan:
 * malformed output twice: steps[0]: unknown function null" → "logical: plan: malformed output twice", so two
 * questions with differently malformed plans count under one reason.
 */
function failureKind(message: string): string {
  const parts = message.split(': ');
  const malformed = parts.findIndex((p) => /malformed output|invalid|timed out|HTTP \d{3}/i.test(p));
  const keep = malformed >= 0 ? malformed + 1 : Math.min(parts.length, 2);
  return parts.slice(0, Math.max(1, keep)).join(': ').slice(0, 160);
}

/** Failures by kind, most frequent first. */
export function countFailures(messages: Iterable<string>): Record<string, number> {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(failureKind(m), (counts.get(failureKind(m)) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}
