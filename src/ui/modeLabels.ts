// The question modes in plain words, as the Ask view's list and the Evaluate view name them (the mode's own name
// first: the CLI, the results and the benches use it).
export const MODE_LABELS: Record<string, string> = {
  ppr: 'ppr — walk the concept graph from the question (default)',
  concept: 'concept — passages near the question’s concepts',
  dense: 'dense — sentences closest in meaning',
  bm25: 'bm25 — keywords',
  'rrf:ppr+bm25': 'rrf — ppr and keywords together',
  hybrid: 'hybrid — concept graph and knowledge graph (needs a built knowledge graph)',
  kg: 'kg — knowledge graph only (needs a built knowledge graph)',
  atomic: 'atomic — through the questions each passage answers (needs them built)',
  decompose: 'decompose — splits the question into sub-questions (needs an LLM endpoint)',
  logical: 'logical — plans the question as steps and solves them (needs an LLM endpoint)',
};
