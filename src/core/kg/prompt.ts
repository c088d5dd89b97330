// The KG extraction prompt: one chunk in, strict JSON out. The chunk text sits between fixed markers so a
// scripted test server (and a human reading logs) can find it; the instructions ask for nothing but the object.
import type { ChatMessage } from '../llm/index.ts';

export const TEXT_BEGIN = '---BEGIN TEXT---';
export const TEXT_END = '---END TEXT---';

const EXTRACTION_SYSTEM = `You extract a knowledge graph from a text for a retrieval system.
Return ONLY a JSON object of this exact shape, with no other text:
{"entities": [{"name": string, "type": string, "description": string, "attributes": [...]}],
 "relations": [{"source": string, "target": string, "description": string, "weight": number}]}
Rules:
- entities: the people, organizations, places, works, events, dates, quantities and concepts the text states facts
  about. "name" as written in the text; "type" one short lowercase word (person, organization, place, work, event,
  date, concept, other); "description" one sentence of what the text says about it.
- attributes: the entity's own facts as {"key", "value"}: key lowercase ("birth date", "release date",
  "population", "country"), value as written ("3 May 1945", "1,200,000 inhabitants"); omit when none.
- relations: facts linking two entities of your list. "source" and "target" are entity names exactly as in
  "entities"; "description" says how they are related according to the text; "weight" is an integer from 1
  (weak, incidental) to 10 (central, explicit).
- Use only what the text says. If it states nothing extractable, return {"entities": [], "relations": []}.`;

export function extractionMessages(chunkText: string): ChatMessage[] {
  return [
    { role: 'system', content: EXTRACTION_SYSTEM },
    {
      role: 'user',
      content: `Extract the knowledge graph of this text.\n${TEXT_BEGIN}\n${chunkText}\n${TEXT_END}`,
    },
  ];
}

/** Output budget of one extraction call. */
export const EXTRACTION_MAX_TOKENS = 4096;
