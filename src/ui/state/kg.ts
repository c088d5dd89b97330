// One KG build / LLM settings API per page (the KG worker behind src/ui/llm/api.ts), shared by the panels that
// the Settings view mounts. Questions in the KG modes go to the query worker through the Ask state
// (src/ui/state/ask.svelte.ts).
import { createKgUiApi, type KgUiApi } from '../llm/api.ts';

let api: KgUiApi | null = null;

export function kgApi(): KgUiApi {
  api ??= createKgUiApi();
  return api;
}
