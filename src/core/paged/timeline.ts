// A question's timeline for benches (test/bench/link-timeline.ts, round twenty-four): User Timing marks of the runs,
// the loads and their stages, and each request's hand-over to the source and check, made only where a bench asked for
// them in this context (`globalThis.pagedTimeline = true`, set from DevTools in the query worker). Off, a mark costs a
// property read: the app's own questions do not grow the browser's performance buffer (marks are kept until cleared).

/** Whether this context records the timeline (read at each mark: a bench turns it on in a worker already running). */
function recording(): boolean {
  return (globalThis as { pagedTimeline?: unknown }).pagedTimeline === true;
}

/** A mark named `paged:<name>` with its details (a round, a stage, a request's ranges and bytes), when recording. */
export function timelineMark(name: string, detail?: Record<string, number>): void {
  if (recording()) performance.mark(`paged:${name}`, { detail });
}
