// A KG build as the app and the CLI bench run it when only the KG is asked for: the distillation build with the KG
// part alone, one extraction call per chunk committed into `store`.
import {
  buildDistilled,
  type DistillBuildOptions,
  type DistillBuildSummary,
} from '../../src/core/atomic/index.ts';
import type { KgStore } from '../../src/core/kg/index.ts';

export function buildKgOnly(
  opts: Omit<DistillBuildOptions, 'kinds' | 'kg' | 'atomic' | 'commit'> & { store: KgStore },
): Promise<DistillBuildSummary> {
  const { store, ...rest } = opts;
  return buildDistilled({ ...rest, kinds: { kg: true, atomic: false }, kg: store });
}
