// One KG build / LLM settings API per page (the KG worker behind src/ui/llm/api.ts), shared by the panels that
// the Library and Settings views mount. Questions in the KG modes go to the query worker (src/ui/llm/api.ts,
// createAnswerUiApi).
import { createKgUiApi, type KgUiApi } from '../llm/api.ts';

let api: KgUiApi | null = null;

export function kgApi(): KgUiApi {
  api ??= createKgUiApi();
  return api;
}
