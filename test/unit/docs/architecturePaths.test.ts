// ARCHITECTURE.md names the files where each part lives: a move that leaves it naming a file that is gone sends the
// next reader to nothing. Every file it names in backticks must exist: a path from the repository's root as it is,
// a shorter path (`library/questionLibrary.ts`) as the end of some file's path, a bare name as some file's name.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const ROOTS = ['src/', 'test/', 'workers/', 'public/', 'docs/', '.ci/'];
/** Files the build writes, named where it says what it builds. */
const BUILT = new Set(['sw.js']);
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.cache', 'test-results', 'playwright-report']);

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.push(relative(ROOT, path));
  }
  return out;
}

/** Every backticked name in the text that looks like a file or folder of this repository. */
function namedPaths(text: string): string[] {
  const named = new Set<string>();
  for (const [, inner] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = inner.replace(/[:#].*$/, '');
    if (path.includes('*') || path.includes('<') || path.startsWith('http') || BUILT.has(path)) continue;
    const rooted = ROOTS.some((r) => path.startsWith(r));
    if (rooted || /^[\w./-]+\.(ts|svelte|md|json|mjs|js|py|html)$/.test(path)) named.add(path);
  }
  return [...named].sort();
}

describe('ARCHITECTURE.md', () => {
  it('names only files and folders that exist', () => {
    const all = files(ROOT);
    const exists = (path: string): boolean => {
      if (ROOTS.some((r) => path.startsWith(r))) {
        try {
          statSync(join(ROOT, path.replace(/\/$/, '')));
          return true;
        } catch {
          return false;
        }
      }
      return all.some((f) => f === path || f.endsWith(`/${path}`));
    };
    const named = namedPaths(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });

  it('would see a file that is gone', () => {
    expect(namedPaths('see `src/services/nowhere.ts` and `gone.ts`, not `a b`')).toEqual([
      'gone.ts',
      'src/services/nowhere.ts',
    ]);
  });
});
