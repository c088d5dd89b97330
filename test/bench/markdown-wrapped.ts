// Seconds per MB of parseMarkdown on runs of "[" laid out three ways: one line, 19,998-character lines (just
// under the long-line limit; before issue 23: 2.7–3.7 s per MB, 15.9 s at 4 MB) and 1,000-character lines, at
// 1 and 4 MB. After the paragraph rule the three cost the same per MB.
//   node --import tsx test/bench/markdown-wrapped.ts
import { loadavg } from 'node:os';
import { parseMarkdown } from '../../src/core/parse/markdown.ts';

const MB = 1024 * 1024;
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const mb of [1, 4]) {
  for (const width of [mb * MB, 19_998, 1000]) {
    const lines = Math.ceil((mb * MB) / width);
    const source = Array(lines)
      .fill('['.repeat(Math.min(width, mb * MB)))
      .join('\n');
    const start = performance.now();
    parseMarkdown(source);
    const seconds = (performance.now() - start) / 1000;
    const layout = width >= MB ? 'one line' : `${width}-char lines`;
    console.log(
      `${mb} MB of "[" as ${layout.padEnd(18)} ${seconds.toFixed(2).padStart(6)} s  ` +
        `${(seconds / (source.length / MB)).toFixed(2)} s per MB`,
    );
  }
}
