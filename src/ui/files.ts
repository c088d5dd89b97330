// Collects files from a drop (files and whole folders, walked recursively) or from a file/folder picker. Nothing
// is read here: a dropped entry of an unsupported type is not even opened as a File (intake.ts refuses it). And the
// other way: `download` saves a file the app made (an export).
import { isSupportedFile } from '../core/parse/index.ts';
import type { PickedFile } from './intake.ts';

/** Hidden files and OS litter in picked folders are skipped, not reported as errors. */
function isLitter(name: string): boolean {
  const base = name.split('/').pop() ?? name;
  return base.startsWith('.') || base === 'Thumbs.db' || base === 'desktop.ini';
}

export function fromInput(list: FileList | null): PickedFile[] {
  if (!list) return [];
  return Array.from(list)
    .map((file) => ({ name: file.webkitRelativePath || file.name, file }))
    .filter((f) => !isLitter(f.name));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walk(entry: FileSystemEntry, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const path = entry.fullPath.replace(/^\//, '');
    if (isLitter(path)) return;
    const file = isSupportedFile(path) ? await entryFile(entry as FileSystemFileEntry) : null;
    out.push({ name: path, file });
    return;
  }
  if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns at most ~100 entries per call: read until it returns none.
    for (;;) {
      const batch = await readEntries(reader);
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, out);
    }
  }
}

export async function fromDrop(transfer: DataTransfer | null): Promise<PickedFile[]> {
  if (!transfer) return [];
  const entries = Array.from(transfer.items)
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry() : null))
    .filter((e): e is FileSystemEntry => e !== null);
  if (entries.length === 0) return fromInput(transfer.files);
  const out: PickedFile[] = [];
  for (const entry of entries) await walk(entry, out);
  return out;
}

/** Saves `data` as a file named `name`; its URL is kept a minute, for a large bundle's download to start. */
export function download(name: string, data: Blob | string, type = ''): void {
  const url = URL.createObjectURL(typeof data === 'string' ? new Blob([data], { type }) : data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
