// The two small libraries of bundle-readonly-llm.spec.ts: the shared bundle's (frozen, test/support/frozenBundles.ts)
// and the local one of the same browser profile, each a passage the question matches among filler passages.

export const BUNDLE_TEXT =
  'The Lighthouse of Alexandria stood on the island of Pharos. It was about one hundred metres tall, ' +
  'and its fire could be seen far out at sea.';
export const LOCAL_TEXT =
  'The harbour of Alexandria had two basins. Fishermen sold their catch at the quay below the lighthouse road.';

/** Filler passages: concepts are terms in at most 5% of the chunks, so a corpus needs more than 20 chunks. */
export function corpus(main: { title: string; text: string }, topic: string): string {
  const lines = [main];
  for (let i = 0; i < 30; i++) {
    lines.push({
      title: `${topic} ${i}`,
      text: `${topic} number ${i} was recorded in ${1700 + i * 7}. Its keeper counted ${i * 13 + 5} barrels of grain.`,
    });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
