// Mode `kg`: core-KG local search. Entities are scored by cosine to the question vector (plus a bonus when their
// name occurs in the question: the embedded USE-lite model matches names poorly), their relations are scored from
// their endpoints and weight, and chunks from the entities and relations that came from them; cut to the budget.
import type { Provenance, RetrievedChunk, SentenceHit } from '../retrieval/index.ts';
import { normalizeName } from './normalize.ts';
import type { KgEntity, KgRelation } from './types.ts';

/** The KG search's settings (no caller overrides them). */
const KG_SEARCH = {
  /** Entities kept as direct hits. */
  topEntities: 10,
  /** Relations kept around the hit entities. */
  topRelations: 20,
  /** Added to an entity's score when its normalized name occurs in the normalized question. */
  nameBonus: 0.5,
  /** Relation scores count this much relative to entity scores when ranking chunks. */
  relationShare: 0.5,
};

export interface KgProvenance extends Provenance {
  mode: 'kg' | 'hybrid';
  /** Names of the hit entities this chunk supports, strongest first. */
  entities: string[];
}

export interface EntityHit extends Pick<KgEntity, 'id' | 'name' | 'type' | 'description'> {
  score: number;
}

export interface RelationHit extends Pick<KgRelation, 'id' | 'source' | 'target' | 'description' | 'weight'> {
  score: number;
}

export interface KgSearchResult {
  chunks: RetrievedChunk[];
  entities: EntityHit[];
  relations: RelationHit[];
}

/** What search needs to know about a chunk; sentence ranges are offsets into `text`. */
export interface KgChunkView {
  docId: string;
  text: string;
  tokens: number;
  sentences?: ReadonlyArray<{ start: number; end: number }>;
}

/** Precomputed search structure over the embedded entities (rebuilt after a build or an incremental update). */
export class KgIndex {
  private readonly entities: KgEntity[];
  private readonly matrix: Float32Array;
  private readonly dimension: number;
  private readonly byEntity = new Map<string, KgRelation[]>();
  /** Embedded relations (description vectors), searched directly as well as through their endpoints. */
  private readonly relations: KgRelation[];
  private readonly relationMatrix: Float32Array;
  /** Normalized names padded with spaces, matched against the padded question. */
  private readonly paddedNames: string[];

  private readonly allRelations: readonly KgRelation[];

  constructor(entities: readonly KgEntity[], relations: readonly KgRelation[]) {
    this.allRelations = [...relations];
    // Entities not embedded yet (no embedder, or embedding pending) are still found by name: zero rows.
    this.entities = [...entities];
    this.dimension = this.entities.find((e) => e.vector && e.vector.length > 0)?.vector?.length ?? 0;
    for (const e of this.entities) {
      if (e.vector && e.vector.length > 0 && e.vector.length !== this.dimension) {
        throw new Error(
          `KG search: entity "${e.name}" has a ${e.vector.length}-d vector, expected ${this.dimension}`,
        );
      }
    }
    this.matrix = new Float32Array(this.entities.length * this.dimension);
    this.entities.forEach((e, i) => {
      if (e.vector && e.vector.length > 0) this.matrix.set(e.vector, i * this.dimension);
    });
    // Names as matched against the question: punctuation folded to spaces once, here, not per query.
    this.paddedNames = this.entities.map(
      (e) =>
        ` ${e.id
          .replace(/[^\p{L}\p{N} ]+/gu, ' ')
          .replace(/\s+/g, ' ')
          .trim()} `,
    );
    this.relations = relations.filter(
      (r) => r.vector && r.vector.length === this.dimension && this.dimension > 0,
    );
    this.relationMatrix = new Float32Array(this.relations.length * this.dimension);
    this.relations.forEach((r, i) => this.relationMatrix.set(r.vector!, i * this.dimension));
    for (const r of relations) {
      for (const end of [r.source, r.target]) {
        const list = this.byEntity.get(end) ?? [];
        list.push(r);
        this.byEntity.set(end, list);
      }
    }
  }

  get size(): number {
    return this.entities.length;
  }

  /** The entities and relations the index was built from (the logical-form solver matches triples over them). */
  graph(): { entities: readonly KgEntity[]; relations: readonly KgRelation[] } {
    return { entities: this.entities, relations: this.allRelations };
  }

  search(
    question: { text: string; vector?: Float32Array },
    chunk: (chunkId: string) => KgChunkView | undefined,
    budgetTokens: number,
  ): KgSearchResult {
    const o = KG_SEARCH;
    const q = ` ${normalizeName(question.text)
      .replace(/[^\p{L}\p{N} ]+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()} `;
    // Similarities in one pass over the packed matrix, then the name bonus, then a bounded top-k.
    const n = this.entities.length;
    const d = this.dimension;
    const sims = new Float64Array(n);
    const qv = question.vector && question.vector.length === d ? question.vector : undefined;
    if (qv) {
      const m = this.matrix;
      for (let i = 0, off = 0; i < n; i++, off += d) {
        let acc = 0;
        for (let j = 0; j < d; j++) acc += qv[j] * m[off + j];
        sims[i] = acc;
      }
    }
    for (let i = 0; i < n; i++) {
      const padded = this.paddedNames[i];
      if (padded.length > 3 && q.includes(padded)) sims[i] += o.nameBonus;
    }
    const scores = topEntries(sims, o.topEntities);
    const top = scores.slice(0, o.topEntities);
    const entityScore = new Map(top.map((t) => [this.entities[t.i].id, t.score]));
    const entityHits: EntityHit[] = top.map((t) => {
      const e = this.entities[t.i];
      return { id: e.id, name: e.name, type: e.type, description: e.description, score: t.score };
    });

    // Relations: through their endpoints among the hit entities (score (s(src) + s(tgt))·weight/10), plus the
    // relations whose own description is most similar to the question (cosine·weight/10) — a fact can match a
    // question whose entities are only paraphrased.
    const relScores = new Map<string, { r: KgRelation; score: number }>();
    for (const hit of entityHits) {
      for (const r of this.byEntity.get(hit.id) ?? []) {
        if (relScores.has(r.id)) continue;
        const s = ((entityScore.get(r.source) ?? 0) + (entityScore.get(r.target) ?? 0)) * (r.weight / 10);
        relScores.set(r.id, { r, score: s });
      }
    }
    if (qv && this.relations.length > 0) {
      const rs = new Float64Array(this.relations.length);
      const m = this.relationMatrix;
      for (let i = 0, off = 0; i < this.relations.length; i++, off += d) {
        let acc = 0;
        for (let j = 0; j < d; j++) acc += qv[j] * m[off + j];
        rs[i] = acc;
      }
      for (const { i, score } of topEntries(rs, o.topRelations)) {
        const r = this.relations[i];
        const direct = score * (r.weight / 10);
        const prev = relScores.get(r.id);
        relScores.set(r.id, { r, score: (prev?.score ?? 0) + direct });
      }
    }
    const relationHits = [...relScores.values()]
      .sort((a, b) => b.score - a.score || (a.r.id < b.r.id ? -1 : 1))
      .slice(0, o.topRelations);

    const chunkScore = new Map<string, { score: number; entities: Map<string, number> }>();
    const credit = (chunkId: string, s: number, entity?: { name: string; score: number }): void => {
      const c = chunkScore.get(chunkId) ?? { score: 0, entities: new Map<string, number>() };
      chunkScore.set(chunkId, c);
      c.score += s;
      if (entity) c.entities.set(entity.name, Math.max(c.entities.get(entity.name) ?? 0, entity.score));
    };
    for (const [k, hit] of entityHits.entries()) {
      const e = this.entities[top[k].i];
      // An entity spread over many chunks says less about each of them.
      const share = hit.score / (1 + Math.log(e.chunkIds.length));
      for (const id of e.chunkIds) credit(id, share, hit);
    }
    for (const { r, score } of relationHits) {
      const share = (o.relationShare * score) / (1 + Math.log(r.chunkIds.length));
      for (const id of r.chunkIds) credit(id, share);
    }
    const ranked: RetrievedChunk[] = [];
    let used = 0;
    for (const [chunkId, c] of [...chunkScore].sort(
      (a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1),
    )) {
      const view = chunk(chunkId);
      if (!view) continue; // the chunk was removed after the KG was built
      // The budget cut (as cutToBudget: stop at the first chunk that does not fit), before any sentence work.
      if (used + view.tokens > budgetTokens) break;
      used += view.tokens;
      const names = [...c.entities].sort((a, b) => b[1] - a[1]).map(([n]) => n);
      const provenance: KgProvenance = {
        mode: 'kg',
        entities: names,
        via: `entities: ${names.slice(0, 5).join(', ')}`,
      };
      ranked.push({
        chunkId,
        docId: view.docId,
        score: c.score,
        text: view.text,
        tokens: view.tokens,
        provenance,
        bestSentences: sentencesNaming(view, names),
      });
    }
    return {
      chunks: ranked,
      entities: entityHits,
      relations: relationHits.map(({ r, score }) => ({
        id: r.id,
        source: r.source,
        target: r.target,
        description: r.description,
        weight: r.weight,
        score,
      })),
    };
  }
}

/** The k best positive scores, best first (ties by index), without sorting all of them. */
function topEntries(scores: Float64Array, k: number): Array<{ i: number; score: number }> {
  const out: Array<{ i: number; score: number }> = [];
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i];
    if (!(score > 0)) continue;
    if (out.length === k && score <= out[k - 1].score) continue;
    let at = out.length;
    while (at > 0 && out[at - 1].score < score) at--;
    out.splice(at, 0, { i, score });
    if (out.length > k) out.pop();
  }
  return out;
}

/** Sentences of the chunk that name the most of `names` (hit entities, a logical plan's values), best first (at most two). */
export function sentencesNaming(view: KgChunkView, names: readonly string[]): SentenceHit[] {
  const ranges = view.sentences ?? splitSentences(view.text);
  const lowered = names.map((n) => n.toLowerCase());
  return ranges
    .map((r) => {
      const s = view.text.slice(r.start, r.end).toLowerCase();
      return { start: r.start, end: r.end, score: lowered.filter((n) => s.includes(n)).length };
    })
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || a.start - b.start)
    .slice(0, 2);
}

/** Fallback sentence ranges when the caller has none: split after . ! ? followed by space. */
export function splitSentences(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  const re = /[^.!?]*(?:[.!?]+|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) && m[0].length > 0) {
    const lead = m[0].length - m[0].trimStart().length;
    const body = m[0].trim();
    if (body) out.push({ start: m.index + lead, end: m.index + lead + body.length });
    if (re.lastIndex >= text.length) break;
  }
  return out;
}
