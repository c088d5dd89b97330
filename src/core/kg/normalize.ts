// Entity identity: two spellings name the same entity when they normalize to the same key.

/** NFKC, lowercase, trimmed, inner whitespace collapsed to one space. */
export function normalizeName(name: string): string {
  return name.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}

export function relationId(sourceId: string, targetId: string): string {
  return `${sourceId}→${targetId}`;
}
