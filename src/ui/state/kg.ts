// One KG/LLM API per page (the LLM engineer's worker behind src/ui/llm/api.ts), shared by the panels that the
// Library, Ask and Settings views mount.
import { createKgUiApi, type KgUiApi } from '../llm/api.ts';

let api: KgUiApi | null = null;

export function kgApi(): KgUiApi {
  api ??= createKgUiApi();
  return api;
}
