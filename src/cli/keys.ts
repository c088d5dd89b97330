// API keys for the command line: read from an environment variable or a file, never taken from argv (a command
// line is readable by every user of the machine in the process list and stays in the shell's history). The LLM
// endpoint and an embeddings endpoint get separate variables, so a key given for one is never sent to the other.
import { readFile } from 'node:fs/promises';
import process from 'node:process';

/** The key of the LLM endpoint named with --llm-base-url. */
export const LLM_KEY_ENV = 'CONCEPTRAG_LLM_API_KEY';
/** The key of an OpenAI-compatible embeddings endpoint named with --embedder openai:<baseUrl>#<model>. */
export const EMBEDDINGS_KEY_ENV = 'CONCEPTRAG_EMBEDDINGS_API_KEY';

/** The key from `file` when given (trailing newline and spaces trimmed), else from `env`, else ''. */
export async function readApiKey(source: { file?: string; env: string }): Promise<string> {
  if (source.file !== undefined) {
    let text: string;
    try {
      text = await readFile(source.file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new Error(`key file ${source.file} cannot be read (${why})`);
    }
    const key = text.trim();
    if (!key) throw new Error(`key file ${source.file} is empty`);
    return key;
  }
  return process.env[source.env]?.trim() ?? '';
}

/** What to say when a key is given on the command line itself. */
export function keyInArgvMessage(command: string, flag: string, env: string, fileFlag: string): string {
  return (
    `${command}: ${flag} is no longer accepted: a key on the command line is visible to other users of this ` +
    `machine and stays in the shell history. Put the key in the environment variable ${env}, or in a file ` +
    `given with ${fileFlag} <path>.`
  );
}
