// Four short passages about the Analytical Engine, written as the CLI's .jsonl corpus: enough for kg-cost to rank,
// select by κ and count the real prompts of each selected chunk.
import { writeFile } from 'node:fs/promises';

export const ENGINE_PASSAGES = [
  {
    id: 'p1',
    title: 'Ada Lovelace',
    text: 'Ada Lovelace wrote the first program for the Analytical Engine.',
  },
  { id: 'p2', title: 'Charles Babbage', text: 'Charles Babbage designed the Analytical Engine in London.' },
  { id: 'p3', title: 'London', text: 'London is the capital of England.' },
  { id: 'p4', title: 'Turing', text: 'Alan Turing read about the Analytical Engine and Ada Lovelace.' },
];

/** Writes the passages as one JSON object a line at `path`. */
export async function writeEngineCorpus(path: string): Promise<void> {
  await writeFile(path, ENGINE_PASSAGES.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
