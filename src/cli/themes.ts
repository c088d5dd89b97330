// `npm run cli -- themes <x.bundle> [--json]`: the library's themes (communities of its concept graph), largest
// first, each with its label, its concepts, its key documents and its representative passages. A bundle with a
// `themes.json` part (cli index --pages) is read by ranges: the part and the passages' records only. Any other is
// read whole and its themes computed from its concept graph. Both go through the library's LibrarySource.
// With --global, the written answer over the themes instead (themesGlobal.ts): its plan, then with an endpoint its run.
import process from 'node:process';
import { openPagedBundle } from '../core/paged/index.ts';
import { createTermAnalyzer } from '../core/text/index.ts';
import type { Theme } from '../core/themes/index.ts';
import { openLibrary } from '../services/library/questionLibrary.ts';
import type { LibrarySource } from '../services/source/librarySource.ts';
import { openSource } from '../services/source/openSource.ts';
import { pagedThemesLoader } from '../services/library/bundleThemes.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { readBundleFile } from './bundleIo.ts';
import { bundleCommandArgs, wholeNumberOption } from './bundleCommand.ts';
import { FileRangeSource } from './fileRangeSource.ts';
import { globalAnswer, globalOptions, oneLine } from './themesGlobal.ts';

const USAGE =
  'usage: npm run cli -- themes <x.bundle> [--json] [--top N]\n' +
  '       npm run cli -- themes <x.bundle> --global [--question "<q>"] [--kappa 0.8] [--json]\n' +
  '             [--llm-base-url <u> --llm-model <m> [--llm-key-file <f>]]   (key: the file, else env ' +
  'CONCEPTRAG_LLM_API_KEY)\n' +
  '  --global  the written answer over the themes: prints its plan (themes, calls, tokens); with an endpoint,\n' +
  '            runs it and prints the answer, its citations and the calls and tokens spent\n';

/** A theme as `themes` prints it: its key documents by title, its passages with their text. */
interface ThemePrinted extends Pick<Theme, 'label' | 'concepts' | 'share' | 'chunks'> {
  documents: string[];
  passages: Array<{ chunkId: string; document: string; text: string }>;
}

export async function run(args: string[]): Promise<number> {
  const parsed = bundleCommandArgs('themes', USAGE, args, {
    top: { type: 'string' },
    global: { type: 'boolean', default: false },
    question: { type: 'string' },
    kappa: { type: 'string' },
    'llm-base-url': { type: 'string' },
    'llm-model': { type: 'string' },
    'llm-key-file': { type: 'string' },
    // Declared only to refuse it with a clear message (parseArgs would call it an unknown option).
    'llm-key': { type: 'string' },
  });
  if (typeof parsed === 'number') return parsed;
  const { values, path } = parsed;
  const top = wholeNumberOption('themes', 'top', values.top, Infinity);
  if (top === null) return 2;
  const global = globalOptions(values);
  if (typeof global === 'string') {
    process.stderr.write(`${global}\n`);
    return 2;
  }
  if (!values.global && (values['llm-base-url'] ?? values.question ?? values.kappa) !== undefined) {
    process.stderr.write('themes: --question, --kappa and --llm-base-url go with --global\n');
    return 2;
  }
  const file = await FileRangeSource.open(path);
  try {
    const paged = await openPagedBundle(file, createTermAnalyzer());
    const themes = paged && pagedThemesLoader(paged);
    const source =
      paged && themes
        ? openSource({ paged: paged.library, themes })
        : openSource({ library: openLibrary(snapshotToCorpus(await readBundleFile(path))) });
    if (values.global) return await globalAnswer(source, global);
    const printed = (await themesOf(source)).slice(0, top);
    process.stdout.write(values.json ? `${JSON.stringify(printed, null, 2)}\n` : text(printed));
    return 0;
  } catch (error) {
    process.stderr.write(`themes: ${path}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await file.close();
  }
}

/** The themes of a source with their passages' text, read through one question's reads. */
export async function themesOf(source: LibrarySource): Promise<ThemePrinted[]> {
  const themes = await source.themes?.();
  if (!themes) return [];
  const question = source.question(new AbortController().signal);
  await question.readChunks?.(themes.themes.flatMap((t) => t.passages));
  return themes.themes.map((t) => ({
    label: t.label,
    concepts: t.concepts,
    share: t.share,
    chunks: t.chunks,
    documents: t.keyTitles,
    passages: t.passages.flatMap((id) => {
      const chunk = question.chunk(id);
      if (!chunk) return [];
      const index = t.keyDocuments.indexOf(chunk.docId);
      return [{ chunkId: id, document: index >= 0 ? t.keyTitles[index] : chunk.docId, text: chunk.text }];
    }),
  }));
}

function text(themes: readonly ThemePrinted[]): string {
  if (themes.length === 0) return 'no themes: the library has too few shared concepts\n';
  return themes
    .map((t, i) => {
      const head = `${i + 1}. ${t.label}  (${(t.share * 100).toFixed(1)}% of the text, ${t.chunks} chunks)`;
      const passages = t.passages.map((p) => `     · ${p.document}: ${oneLine(p.text)}`);
      return [
        head,
        `   concepts: ${t.concepts.join(', ')}`,
        `   documents: ${t.documents.join('; ')}`,
        ...passages,
      ].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}
