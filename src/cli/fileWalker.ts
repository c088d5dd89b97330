// The CLI's one way into the files it is given (`index`, `bench` on a folder): the browser's intake rules applied
// to a folder on disk. Regular files only (a FIFO would hang the read, /dev/zero never ends), never outside the
// folder that was named (a symbolic link to a file elsewhere would carry that file into a bundle that is then
// shared), links to inside followed once (loops detected), the page's extension filter and 20 MB cap
// (src/core/parse/formats.ts), and a verdict for every entry left out, so one bad entry never ends the run.
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { MAX_FILE_BYTES, isSupportedFile, tooLargeReason, unsupportedReason } from '../core/parse/index.ts';
import type { FileError } from '../core/types.ts';

export interface Walk {
  /** Files to read, as named (the folder given + the path inside it), sorted within each folder. */
  files: string[];
  /** Every entry left out, with the reason in words. */
  skipped: FileError[];
}

/** What an entry that is not a file or a folder is, for the verdict. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

/** Why a path could not be looked at, in words. */
function statReason(error: unknown): string {
  switch (codeOf(error)) {
    case 'ENOENT':
      return 'does not exist (or is a symbolic link to nothing)';
    case 'ELOOP':
      return 'is a symbolic link that loops';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    default:
      return `cannot be read (${codeOf(error)})`;
  }
}

/**
 * Expands folders (recursively, hidden entries skipped, sorted) into the files the app can index; a file named
 * explicitly is kept whatever its extension (the parser then names its type), but must be a regular file under the
 * size cap like any other. A named path that cannot be used is a verdict too, not an exception.
 */
export async function walkInputs(paths: readonly string[]): Promise<Walk> {
  const files: string[] = [];
  const skipped: FileError[] = [];
  /** Real path → the path it was first reached by: a file reached twice (a link to it) is read once. */
  const seen = new Map<string, string>();
  const skip = (path: string, reason: string): void => void skipped.push({ file: path, reason });

  const addFile = (path: string, real: string, info: Stats, explicit: boolean): void => {
    if (!explicit && !isSupportedFile(path)) return skip(path, `${unsupportedReason(path)}; not read`);
    if (info.size > MAX_FILE_BYTES) return skip(path, `${tooLargeReason(info.size)}; not read`);
    const first = seen.get(real);
    if (first !== undefined) return skip(path, `the same file as ${first}; read once`);
    seen.set(real, path);
    files.push(path);
  };

  const walkFolder = async (root: string, rootReal: string): Promise<void> => {
    const inside = (real: string): boolean => real === rootReal || real.startsWith(rootReal + sep);
    const walked = new Set<string>([rootReal]);
    const visit = async (dir: string, dirReal: string): Promise<void> => {
      let names: string[];
      try {
        names = (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
      } catch (error) {
        return skip(dir, `the folder ${statReason(error)}`);
      }
      for (const name of names) {
        const path = join(dir, name);
        let info: Stats;
        let real = join(dirReal, name);
        try {
          info = await lstat(path);
          if (info.isSymbolicLink()) {
            real = await realpath(path);
            if (!inside(real)) {
              skip(path, `a symbolic link to ${real}, outside the folder ${root}; not read`);
              continue;
            }
            info = await stat(real);
          }
        } catch (error) {
          skip(path, statReason(error));
          continue;
        }
        if (info.isDirectory()) {
          if (walked.has(real)) {
            skip(path, `a link to the folder ${real}, which is walked already (a loop); not followed again`);
            continue;
          }
          walked.add(real);
          await visit(path, real);
        } else if (info.isFile()) {
          addFile(path, real, info, false);
        } else {
          skip(path, `${kindOf(info)}, not a regular file; not read`);
        }
      }
    };
    await visit(root, rootReal);
  };

  for (const path of paths) {
    let info: Stats;
    let real: string;
    try {
      // A path the person typed is followed wherever it leads: that is their choice, not the folder's.
      info = await stat(path);
      real = await realpath(path);
    } catch (error) {
      skip(path, statReason(error));
      continue;
    }
    if (info.isDirectory()) await walkFolder(path, real);
    else if (info.isFile()) addFile(path, real, info, true);
    else skip(path, `${kindOf(info)}, not a regular file; not read`);
  }
  return { files, skipped };
}

/**
 * Reads a file the walker kept, checking again on the open file itself (it may have been replaced since the
 * walk): opened without blocking (a FIFO put in its place does not hang the open), a regular file, at most
 * MAX_FILE_BYTES read even if it grew. Throws an Error whose message is the reason in words.
 */
export async function readInputFile(path: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new Error(statReason(error));
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${kindOf(info)}, not a regular file; not read`);
    if (info.size > MAX_FILE_BYTES) throw new Error(`${tooLargeReason(info.size)}; not read`);
    // One byte more than the cap: a file that grew past it since the stat is refused, not cut.
    const buffer = new Uint8Array(Math.min(info.size, MAX_FILE_BYTES) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) {
        if (length > MAX_FILE_BYTES) throw new Error(`${tooLargeReason(length)}; not read`);
        break;
      }
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
