// Requests that carry an API key never follow a redirect. A base URL that answers "307 → elsewhere" would have
// fetch repeat the request — body, and on a same-origin hop the Authorization header — to a place the user never
// configured; and a redirect is also how a compromised or misconfigured proxy would collect keys. With
// redirect: 'manual' the redirect comes back as a response (an opaque one in browsers, the 3xx itself in Node)
// that the caller refuses with a message saying where to point the base URL instead.

/** 'manual' when the request carries a key, 'follow' otherwise (nothing secret would travel). */
export function redirectMode(apiKey: string | undefined): RequestRedirect {
  return apiKey ? 'manual' : 'follow';
}

/** True for a redirect answered to a redirect: 'manual' request (browsers hide it as type 'opaqueredirect'). */
export function isRedirect(res: Response): boolean {
  return res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400);
}

/** What to tell the user; names the target when the platform shows it (Node does, browsers do not). */
export function redirectMessage(url: string, res: Response): string {
  const to = res.headers.get('location');
  return (
    `${url} answered with a redirect${to ? ` to ${to}` : ''}; requests carrying the API key do not follow ` +
    `redirects, so set the base URL to the address the server redirects to`
  );
}
