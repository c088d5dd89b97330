// What a heap snapshot holds, by constructor and by the field (or captured variable) that holds it: the summary
// drop.ts --heap-snapshot prints, for a snapshot file written earlier.
// Usage: node --import tsx test/bench/heap-summary.ts <file.heapsnapshot> [top]
import process from 'node:process';
import { summarizeFile } from './lib/heapSnapshot.ts';

const [file, top] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx test/bench/heap-summary.ts <file.heapsnapshot> [top]');
  process.exit(1);
}
const heap = await summarizeFile(file, Number(top ?? 15));
console.log(`${file}: ${heap.totalMB} MB`);
console.log('| by constructor | count | MB |\n| --- | --- | --- |');
for (const g of heap.byConstructor) console.log(`| ${g.name} | ${g.count} | ${g.MB} |`);
console.log('\n| by holder (Owner.field, minified owner names) | count | MB |\n| --- | --- | --- |');
for (const g of heap.byHolder) console.log(`| ${g.name} | ${g.count} | ${g.MB} |`);
