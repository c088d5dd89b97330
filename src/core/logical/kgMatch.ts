// Matching a retrieval step's names and predicate against the KG: entity names and aliases (the spellings of its
// mentions and "alias" attributes), attribute keys and relation descriptions — exact first, then fuzzy (word
// overlap, edit distance), then by embedding when the library has vectors. A tier is tried only when the one
// before it found nothing, so an exact name never loses to a fuzzy neighbour.
import { normalizeKey, normalizeName, type KgEntity, type KgRelation } from '../kg/index.ts';

export interface KgView {
  entities: readonly KgEntity[];
  relations: readonly KgRelation[];
  /** The library's embedder, for the last matching tier; absent or undefined result when it has none. */
  embed?(text: string): Promise<Float32Array | undefined>;
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'in',
  'on',
  'at',
  'to',
  'by',
  'for',
  'is',
  'was',
  'and',
  'its',
  'with',
]);

/** Content words, crudely stemmed ("released" ~ "release", "births" ~ "birth"). */
function words(text: string): string[] {
  return normalizeName(text)
    .replace(/[^\p{L}\p{N} ]+/gu, ' ')
    .split(' ')
    .filter((w) => w && !STOP.has(w))
    .map((w) => w.replace(/(ing|ed|es|er|or|s|e)$/u, '') || w);
}

function overlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const sb = new Set(b);
  return a.filter((w) => sb.has(w)).length / a.length;
}

function editRatio(a: string, b: string): number {
  if (a === b) return 1;
  if (Math.abs(a.length - b.length) > Math.max(a.length, b.length) / 2) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return 1 - prev[b.length] / Math.max(a.length, b.length);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

const MATCH_THRESHOLDS = { fuzzyName: 0.85, fuzzyWords: 0.75, embedding: 0.85, predicate: 0.5 };

export type MatchTier = 'exact' | 'fuzzy' | 'embedding';

function aliases(e: KgEntity): string[] {
  const out = new Set<string>([e.id]);
  for (const m of e.mentions) out.add(normalizeName(m.name));
  for (const a of e.attributes ?? [])
    if (/^(alias|also known as|aka)$/.test(a.key)) out.add(normalizeName(a.value));
  return [...out];
}

/** Entities whose type names the given type ("film" finds type "film" and "films"; not "work"). */
export function entitiesOfType(kg: KgView, type: string): KgEntity[] {
  const tw = words(type);
  return kg.entities.filter((e) => overlap(tw, words(e.type)) >= 1);
}

/** The entities a name stands for, by the first tier that finds any. */
export async function findEntities(
  kg: KgView,
  name: string,
): Promise<{ entities: KgEntity[]; tier?: MatchTier }> {
  // No type filter on names: extracted types are loose ("work" for a film) and names are specific.
  const target = normalizeName(name);
  const candidates = kg.entities;
  const exact = candidates.filter((e) => aliases(e).includes(target));
  if (exact.length) return { entities: exact, tier: 'exact' };
  const tw = words(name);
  const fuzzy = candidates
    .map((e) => {
      // A near spelling ("Bo Kimm") or the same content words in another form ("Kim, Bo"); never one word
      // swapped for another of similar letters ("Zeta" is not "Beta").
      let score = 0;
      for (const a of aliases(e)) {
        const aw = words(a);
        const edit = editRatio(a, target);
        const shared = Math.min(overlap(tw, aw), overlap(aw, tw));
        if (edit >= MATCH_THRESHOLDS.fuzzyName) score = Math.max(score, edit);
        if (shared >= MATCH_THRESHOLDS.fuzzyWords) score = Math.max(score, shared);
      }
      return { e, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
  if (fuzzy.length) return { entities: fuzzy.slice(0, 1).map((x) => x.e), tier: 'fuzzy' };
  const v = await kg.embed?.(name);
  if (v) {
    let best: { e: KgEntity; score: number } | undefined;
    for (const e of candidates) {
      if (!e.vector || e.vector.length !== v.length) continue;
      const score = cosine(v, e.vector);
      if (score >= MATCH_THRESHOLDS.embedding && (!best || score > best.score)) best = { e, score };
    }
    if (best) return { entities: [best.e], tier: 'embedding' };
  }
  return { entities: [] };
}

/**
 * How well a predicate names an attribute key (0…1): the share of content words the two have in common (Jaccard),
 * so "death date" does not take "birth date" for itself through the shared "date", while "date of birth" is
 * "birth date".
 */
export function keyScore(p: string, key: string): number {
  if (normalizeKey(p) === normalizeKey(key)) return 1;
  const a = new Set(words(p));
  const b = new Set(words(key));
  const shared = [...a].filter((w) => b.has(w)).length;
  return shared / Math.max(1, new Set([...a, ...b]).size);
}

/** Whether a relation's description states the predicate: every content word of p occurs in it. */
export function describes(p: string, description: string): boolean {
  const pw = words(p);
  return pw.length > 0 && overlap(pw, words(description)) === 1;
}

/** The attributes of an entity that the predicate names, best first. */
export function matchAttributes(e: KgEntity, p: string): NonNullable<KgEntity['attributes']> {
  const scored = (e.attributes ?? [])
    .map((a) => ({ a, score: keyScore(p, a.key) }))
    .filter((x) => x.score >= MATCH_THRESHOLDS.predicate);
  const best = Math.max(0, ...scored.map((x) => x.score));
  return scored.filter((x) => x.score === best).map((x) => x.a);
}

/** Relations touching an entity whose description names the predicate; `other` is the far end's id. */
export function matchRelations(
  kg: KgView,
  entityId: string,
  p: string,
): Array<{ relation: KgRelation; other: string; outgoing: boolean }> {
  const out: Array<{ relation: KgRelation; other: string; outgoing: boolean }> = [];
  for (const r of kg.relations) {
    if (r.source !== entityId && r.target !== entityId) continue;
    if (!describes(p, r.description)) continue;
    const outgoing = r.source === entityId;
    out.push({ relation: r, other: outgoing ? r.target : r.source, outgoing });
  }
  return out.sort((a, b) => Number(b.outgoing) - Number(a.outgoing));
}
