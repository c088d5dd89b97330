// Reads the page's query string once at start-up (e.g. ?bundle=<path> opens a bundle read-only).

export function queryParam(name: string): string | null {
  return new URLSearchParams(location.search).get(name);
}
