// The themes of a bundle read by ranges: its `themes.json` part, read whole in one range on the first corpus-wide
// question and kept while the bundle is open. Undefined when the bundle holds none (an older bundle, or one written
// without pages): such a library is answered the ordinary way, as before.
import type { PagedBundle } from '../../core/paged/index.ts';
import { readThemesPart, THEMES_PART, type LibraryThemes } from '../../core/themes/index.ts';

/** Bytes read for each bundle's themes (the bench reports them beside the answer's own reads). */
export const themesBytesRead = new WeakMap<PagedBundle, number>();

export function pagedThemesLoader(bundle: PagedBundle): (() => Promise<LibraryThemes | null>) | undefined {
  if (!bundle.manifest.parts.some((p) => p.name === THEMES_PART)) return undefined;
  let loading: Promise<LibraryThemes | null> | undefined;
  return () => {
    loading ??= readThemesPart(bundle.source, bundle.manifest).then(
      (read) => {
        if (read) themesBytesRead.set(bundle, read.bytes);
        return read?.themes ?? null;
      },
      (error: unknown) => {
        // A failed read (the host, a cancel) is tried again by the next question; a refused part says why each time.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}
