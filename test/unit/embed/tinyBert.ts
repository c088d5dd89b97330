// Makes sure the tiny random-weight BERT fixture exists (generating it with Debian's python3-onnx if not) and
// says where it is. Tests skip with a clear message only when /usr/bin/python3 cannot import onnx.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const TINY_BERT_DIR = join(root, 'test', 'fixtures', 'generated', 'tiny-bert');
const PYTHON = '/usr/bin/python3';

/** Returns null when the fixture is ready, or the reason it cannot be generated here. */
export function ensureTinyBert(): string | null {
  const files = [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/model.onnx',
    'onnx/model_quantized.onnx',
  ];
  if (files.every((f) => existsSync(join(TINY_BERT_DIR, f)))) return null;
  const probe = spawnSync(PYTHON, ['-c', 'import onnx, numpy'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    return `tiny-bert fixture: ${PYTHON} cannot import onnx/numpy (install Debian's python3-onnx): ${probe.stderr ?? probe.error}`;
  }
  // Test files run in parallel processes: each generates into its own folder and renames it into place, so no
  // test ever reads a half-written model. The loser of the race drops its copy.
  const tmp = `${TINY_BERT_DIR}.tmp-${process.pid}`;
  mkdirSync(dirname(TINY_BERT_DIR), { recursive: true });
  execFileSync(PYTHON, [join(root, 'test', 'support', 'make-tiny-bert.py'), tmp], { stdio: 'pipe' });
  try {
    renameSync(tmp, TINY_BERT_DIR);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(TINY_BERT_DIR, 'onnx', 'model_quantized.onnx'))) throw e;
  }
  return null;
}
