// The hostile folder of issue 23, made on the fly under `root`: one good Markdown file beside a symbolic link to a
// file outside the folder, a link to /dev/zero, a FIFO, two symbolic-link loops (a link to itself, a link to the
// folder's parent inside it), entries nobody can read, root included (a socket, a link to nothing: the tests run
// as root, for whom a chmod 000 file is readable), a 30 MB sparse file over the 20 MB cap and a .docx of ~100 KB
// whose XML inflates to 40 MB of paragraphs. Used by test/unit/bundle/cliWalker.test.ts and test/bench/hostile-folder.ts.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { docxXmlBomb } from './hostileCorpus.ts';

export interface HostileFolder {
  /** The folder to index. */
  folder: string;
  /** The secret file outside it that a link points at. */
  secret: string;
  /** The one file that must be indexed. */
  good: string;
  /** Every other entry (its path as the walker names it) and what its verdict must say. */
  bad: Array<{ path: string; reason: RegExp }>;
  /** Closes the socket's server. */
  close(): Promise<void>;
}

export const GOOD_TEXT = '# Herons\n\nThe grey heron waits by the river. It eats fish and frogs.\n';
export const SECRET_TEXT = '# Secret\n\nThe local secret that must never reach a bundle: ZEBRA-LANTERN-42.\n';

export async function makeHostileFolder(root: string): Promise<HostileFolder> {
  const folder = join(root, 'library');
  const outside = join(root, 'outside');
  await mkdir(join(folder, 'sub'), { recursive: true });
  await mkdir(outside, { recursive: true });
  const secret = join(outside, 'secret.md');
  await writeFile(secret, SECRET_TEXT);
  const good = join(folder, 'good.md');
  await writeFile(good, GOOD_TEXT);
  const at = (name: string): string => join(folder, name);

  await symlink(secret, at('outside-link.md'));
  await symlink('/dev/zero', at('zero.txt'));
  execFileSync('mkfifo', [at('pipe.md')]);
  await symlink('self-loop.md', at('self-loop.md'));
  await symlink('..', join(folder, 'sub', 'back'));
  await symlink('missing.md', at('dangling.md'));
  await writeFile(at('bomb.docx'), docxXmlBomb(40));
  await writeFile(at('huge.txt'), '');
  await truncate(at('huge.txt'), 30 * 1024 * 1024);
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(at('socket.md'), resolve));

  return {
    folder,
    secret,
    good,
    bad: [
      { path: at('outside-link.md'), reason: /symbolic link to .*secret\.md, outside the folder/ },
      { path: at('zero.txt'), reason: /symbolic link to \/dev\/zero, outside the folder/ },
      { path: at('pipe.md'), reason: /a FIFO \(named pipe\), not a regular file/ },
      { path: at('self-loop.md'), reason: /a symbolic link that loops/ },
      { path: join(folder, 'sub', 'back'), reason: /walked already \(a loop\); not followed again/ },
      { path: at('dangling.md'), reason: /does not exist \(or is a symbolic link to nothing\)/ },
      { path: at('socket.md'), reason: /a socket, not a regular file/ },
      { path: at('huge.txt'), reason: /file too large \(30\.0 MB; the limit is 20 MB\)/ },
      // The walker keeps it (a .docx under the cap); its parse is stopped: time or memory, whichever comes first.
      {
        path: 'bomb.docx',
        reason: /took too long to parse \(over \d+ s\)|needed more than \d+ MB of memory/,
      },
    ],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
