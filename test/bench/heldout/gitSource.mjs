// Reads the held-out sets' source pages from a bare git mirror (the `fetch` tool's git dir) at a pinned commit, so
// that every builder rebuilds byte-identical docs/ whatever the mirror's HEAD has moved to since.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The command line every builder takes: <git dir> <out dir>; a clear usage message otherwise. */
export function parseArgs(script) {
  const [gitDir, outDir] = process.argv.slice(2);
  if (!gitDir || !outDir) {
    process.stderr.write(
      `usage: node ${script} <git dir of the mirror> <out dir, e.g. /work/heldout/<set>>\n`,
    );
    process.exit(2);
  }
  return { gitDir, outDir };
}

function git(gitDir, args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 256 * 1024 * 1024 });
}

/** Fails with the commit's name when the mirror does not hold the pinned commit. */
export function checkCommit(gitDir, commit) {
  try {
    git(gitDir, ['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `${gitDir} does not hold commit ${commit}: fetch a newer mirror of the source repository`,
    );
  }
}

/** Every blob path under `folder` at `commit`, with its size in bytes. */
export function listFiles(gitDir, commit, folder) {
  return git(gitDir, ['ls-tree', '-r', '-l', commit, '--', folder])
    .toString('utf8')
    .split('\n')
    .filter((l) => / blob /.test(l))
    .map((l) => {
      const [meta, path] = l.split('\t');
      const size = Number(meta.trim().split(/\s+/)[3]);
      return { path, size };
    });
}

export function readBlob(gitDir, commit, path) {
  return git(gitDir, ['show', `${commit}:${path}`]);
}

/** `guide/essentials/computed.md` → `guide__essentials__computed.md`, as in the shared vuedocs set. */
export function flatName(relativePath) {
  return relativePath.split('/').join('__');
}

/** Empties and recreates a folder (only the builder's own output folder is ever passed). */
export function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}

/** Writes the license file(s) beside docs/, so the text travels with the pages. */
export function copyLicenses(gitDir, commit, outDir, paths) {
  for (const p of paths) writeFileSync(join(outDir, p.split('/').pop()), readBlob(gitDir, commit, p));
}

/** A builder's start: its arguments read, the pinned commit checked, and an empty docs/ in the out dir. */
export function openSet(script, commit) {
  const { gitDir, outDir } = parseArgs(script);
  checkCommit(gitDir, commit);
  const docs = join(outDir, 'docs');
  freshDir(docs);
  return { gitDir, outDir, docs };
}

/**
 * Copies into `set.docs`, byte for byte, every blob under `folders` at `commit` that `choose` names: it gets the
 * blob's path, size and a reader of its bytes, and returns the page's file name under docs/ (or undefined to leave
 * it out). Returns how many pages and bytes were written.
 */
export function copyPages(set, commit, folders, choose) {
  let files = 0;
  let bytes = 0;
  for (const folder of folders) {
    for (const { path, size } of listFiles(set.gitDir, commit, folder)) {
      let body;
      const read = () => (body ??= readBlob(set.gitDir, commit, path));
      const name = choose(path, size, read);
      if (name === undefined) continue;
      writeFileSync(join(set.docs, name), read());
      files += 1;
      bytes += body.length;
    }
  }
  return { files, bytes };
}
