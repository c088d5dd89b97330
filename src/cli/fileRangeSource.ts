// A bundle file on disk as a RangeSource: `ask` on a bundle with pages reads only the blocks its questions need.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { bundleFileSize } from './bundleIo.ts';
import { basename } from 'node:path';
import type { RangeSource } from '../core/paged/index.ts';

export class FileRangeSource implements RangeSource {
  bytesRead = 0;
  /**
   * A read of a file is a system call of microseconds, about what hashing a block of gap costs: no gap is worth
   * reading, and `ask --stats` then counts the bytes the question asked for, rounded to blocks.
   */
  readonly gapBytes = 0;

  private constructor(
    private readonly handle: FileHandle,
    readonly name: string,
    readonly size: number,
  ) {}

  static async open(path: string): Promise<FileRangeSource> {
    // The same messages as a whole read (bundleIo.ts): a regular file only. Opened without blocking, and checked
    // again once open, so that a pipe put in its place meanwhile does not hang the open either.
    await bundleFileSize(path);
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => {
      throw new Error(`bundle file ${path} does not exist or cannot be read`);
    });
    const found = await handle.stat();
    if (!found.isFile()) {
      await handle.close();
      throw new Error(
        `bundle file ${path} is not a regular file (a pipe, device or folder is not read as a bundle)`,
      );
    }
    const { size } = found;
    return new FileRangeSource(handle, basename(path), size);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > this.size) {
      throw new Error(`${this.name}: ${length} bytes at ${offset} are past its end (${this.size} bytes)`);
    }
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(out, done, length - done, offset + done);
      if (bytesRead === 0)
        throw new Error(`${this.name}: the file ended at byte ${offset + done} (it changed?)`);
      done += bytesRead;
    }
    this.bytesRead += length;
    return out;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
