// The village corpus of the reload spec (03-reload-resume) and of the long-task bench (test/bench/long-tasks-
// browser.ts): short passages, each different, three sentences each, as many as the spec or bench asks for.

const WORDS = [
  'river',
  'harbour',
  'mill',
  'castle',
  'market',
  'bridge',
  'abbey',
  'forest',
  'valley',
  'tower',
];
const NAMES = [
  'Alden',
  'Brisk',
  'Corven',
  'Dunmore',
  'Elsby',
  'Fenwick',
  'Garrow',
  'Hollin',
  'Ivel',
  'Jarrow',
];

/** A deterministic corpus of short passages, each different, three sentences each. */
export function villagePassages(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${NAMES[i % 10]}${NAMES[Math.floor(i / 10) % 10].toLowerCase()}`;
    const a = WORDS[i % 10];
    const b = WORDS[(i * 7 + 3) % 10];
    const text =
      `${name} is a village known for its ${a}, first recorded in the year ${1000 + i}. ` +
      `The old ${b} of ${name} was rebuilt ${(i % 9) + 2} times after floods. ` +
      `Today about ${100 + ((i * 37) % 900)} people live in ${name}.`;
    lines.push(JSON.stringify({ title: `${name} (village ${i})`, text }));
  }
  return lines.join('\n') + '\n';
}
