// A caught value as words, for the user and the logs: an Error's message, anything else as a string.
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
