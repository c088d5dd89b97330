// A hand-made KG for the logical-form tests: films with release dates and directors, people with birth dates and
// birthplaces, places with populations, built through the real KG merge (MemoryKgStore.commit of validated
// extractions), and one passage (Delta) that the KG does not cover. Every value the tests expect is derived by
// hand from the texts below.
import { validateExtraction } from '../../../src/core/kg/schema.ts';
import { MemoryKgStore } from '../../../src/core/kg/store.ts';
import type { KgView, Passage } from '../../../src/core/logical/index.ts';

const CHUNKS: Record<string, string> = {
  'films#0000#0000': 'Alpha is a film released on 12 March 1994, directed by Ann Lee.',
  'films#0000#0001': 'Beta is a film released on 5 June 1990, directed by Bo Kim.',
  'films#0000#0002': 'Gamma is a film released on 1 January 2001, directed by Ann Lee.',
  'people#0000#0000': 'Ann Lee (born 14 April 1950) is a director born in Springfield.',
  'people#0000#0001': 'Bo Kim (born 20 October 1942) is a director.',
  'places#0000#0000': 'Springfield has a population of 1,200,000 inhabitants. Shelbyville has 800,000.',
  'extra#0000#0000': 'Delta is a 1985 film directed by Cy Moe.',
};

const film = (name: string, date: string, director: string) => ({
  entities: [
    {
      name,
      type: 'film',
      description: `${name} is a film.`,
      attributes: [{ key: 'release date', value: date }],
    },
    { name: director, type: 'person', description: `${director} directed ${name}.` },
  ],
  relations: [{ source: name, target: director, description: 'directed by', weight: 9 }],
});

const EXTRACTIONS: Record<string, unknown> = {
  'films#0000#0000': film('Alpha', '12 March 1994', 'Ann Lee'),
  'films#0000#0001': film('Beta', '5 June 1990', 'Bo Kim'),
  'films#0000#0002': film('Gamma', '1 January 2001', 'Ann Lee'),
  'people#0000#0000': {
    entities: [
      {
        name: 'Ann Lee',
        type: 'person',
        description: 'A director.',
        attributes: [{ key: 'birth date', value: '14 April 1950' }],
      },
      { name: 'Springfield', type: 'place', description: 'A city.' },
    ],
    relations: [{ source: 'Ann Lee', target: 'Springfield', description: 'born in', weight: 8 }],
  },
  'people#0000#0001': {
    entities: [
      {
        name: 'Bo Kim',
        type: 'person',
        description: 'A director.',
        attributes: [{ key: 'birth_date', value: 'October 20, 1942' }],
      },
    ],
    relations: [],
  },
  'places#0000#0000': {
    entities: [
      {
        name: 'Springfield',
        type: 'place',
        description: 'A city.',
        attributes: [{ key: 'population', value: '1,200,000 inhabitants' }],
      },
      {
        name: 'Shelbyville',
        type: 'place',
        description: 'A city.',
        attributes: [{ key: 'population', value: '800,000 inhabitants' }],
      },
    ],
    relations: [],
  },
};

export async function fixtureKg(): Promise<KgView> {
  const store = new MemoryKgStore();
  for (const [chunkId, raw] of Object.entries(EXTRACTIONS)) {
    const v = validateExtraction(raw);
    if (!v.ok) throw new Error(`fixture ${chunkId}: ${v.errors.join('; ')}`);
    await store.commit(chunkId, {
      status: 'done',
      extraction: v.value,
      attempts: 1,
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
    });
  }
  return { entities: await store.entities(), relations: await store.relations() };
}

/** A small lexical ranker over the fixture chunks (the app uses ppr): chunks sharing the most words first. */
export async function fixturePassages(question: string): Promise<Passage[]> {
  const words = new Set(question.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return Object.entries(CHUNKS)
    .map(([chunkId, text]) => ({
      chunkId,
      text,
      score: (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => words.has(w) && w.length > 3)
        .length,
    }))
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score)
    .map(({ chunkId, text }) => ({ chunkId, text }));
}
