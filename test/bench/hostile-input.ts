// Time to a verdict for every file of the hostile-input corpus (test/support/hostileCorpus.ts), through the real
// prepareFile (parse → hash → chunk) in Node, one file at a time, plus the old-vs-new comparison points the
// README quotes. Prints one line per file: milliseconds, verdict, reason.
//   node --import tsx test/bench/hostile-input.ts [--rounds N]
import { prepareFile } from '../../src/core/prepare.ts';
import { hostileCorpus } from '../support/hostileCorpus.ts';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 1;
const t0 = performance.now();
const corpus = hostileCorpus();
console.log(`corpus generated in ${((performance.now() - t0) / 1000).toFixed(1)} s (${corpus.length} files)`);
let worst = 0;
for (const file of corpus) {
  const times: number[] = [];
  let verdict = '';
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const { documents, errors } = await prepareFile(file.name, file.bytes);
    times.push(performance.now() - start);
    const reason = errors.map((e) => e.reason).join('; ');
    verdict =
      documents.length > 0
        ? `indexed (${documents.length} doc)${reason ? ` note: ${reason.slice(0, 90)}…` : ''}`
        : `failed: ${reason.slice(0, 110)}`;
  }
  const best = Math.min(...times);
  worst = Math.max(worst, best);
  const kb = (file.bytes.length / 1024).toFixed(0).padStart(6);
  console.log(`${best.toFixed(0).padStart(6)} ms  ${kb} KB  ${file.name.padEnd(28)} ${verdict}`);
}
console.log(`slowest verdict: ${(worst / 1000).toFixed(2)} s`);
