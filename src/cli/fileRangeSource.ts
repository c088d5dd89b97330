// A bundle file on disk as a RangeSource: `ask` on a bundle with pages reads only the blocks its questions need.
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RangeSource } from '../core/paged/index.ts';

export class FileRangeSource implements RangeSource {
  bytesRead = 0;

  private constructor(
    private readonly handle: FileHandle,
    readonly name: string,
    readonly size: number,
  ) {}

  static async open(path: string): Promise<FileRangeSource> {
    // The same message as a whole read of a missing bundle (bundleIo.ts).
    const handle = await open(path, 'r').catch(() => {
      throw new Error(`bundle file ${path} does not exist or cannot be read`);
    });
    const { size } = await handle.stat();
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
