// Builds the zhprose held-out corpus: the paragraphs of the two Chinese seed papers (G2ConS and KAG, machine
// translations in ../shared/papers), one passage per paragraph, as the Wikipedia sets give them (corpus.jsonl of
// {id, title, text}). A paragraph is a non-empty line that is not a heading, a rule or a table row and holds at
// least 20 Han characters; its title is the paper's short name and the heading it stands under.
// Usage: node test/bench/heldout/zhprose/build.mjs <papers folder> <out folder>   (writes <out>/corpus.jsonl)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PAPERS = [
  ['001_88a023139436d0bf.txt', 'g2cons', 'G2ConS'],
  ['004_d7b8e9c4b4409069.txt', 'kag', 'KAG'],
];
const [papers, out] = process.argv.slice(2);
if (!papers || !out) throw new Error('usage: build.mjs <papers folder> <out folder>');
const HAN = /\p{Script=Han}/gu;
const lines = [];
for (const [file, key, name] of PAPERS) {
  let heading = '';
  let n = 0;
  for (const raw of readFileSync(join(papers, file), 'utf8').split('\n')) {
    const line = raw.trim();
    const h = /^#+\s+(.*)$/.exec(line);
    if (h) {
      heading = h[1].replace(/\*\*/g, '');
      continue;
    }
    if (!line || line.startsWith('|') || /^[-=*]{3,}$/.test(line)) continue;
    if ((line.match(HAN) ?? []).length < 20) continue;
    n++;
    const id = `zp-${key}-${String(n).padStart(3, '0')}`;
    lines.push(JSON.stringify({ id, title: heading ? `${name} › ${heading}` : name, text: line }));
  }
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'corpus.jsonl'), lines.join('\n') + '\n');
process.stderr.write(`zhprose: ${lines.length} passages in ${join(out, 'corpus.jsonl')}\n`);
