// A heading as words a reader sees. Documentation sites write markup into their headings that the Markdown
// grammar leaves as text: VitePress/Pandoc ids ("Computed Properties {#computed-properties}"), an escaped
// footnote mark ("watchEffect() \*\*" reads "watchEffect() **"), a line break tag. None of it is a word of the
// heading, and shown in a title or a section path it reads as noise.

/** A trailing attribute block: `{#id}`, `{.class}`, `{#id .class data-x=1}`. */
const ATTRIBUTES = /\s*\{[#.][^{}]*\}\s*$/;
/** Emphasis marks standing alone between spaces (no word to emphasise). */
const LONE_MARKS = /(^|\s)[*_~]{1,3}(?=\s|$)/g;
/** A line-break tag written into a heading or a title (`<br>`, `<br/>`); other tags may be code ("`<slot>`"). */
const BREAK_TAG = /<br\s*\/?>/gi;

export function cleanHeadingText(heading: string): string {
  let out = heading.replace(BREAK_TAG, ' ');
  while (ATTRIBUTES.test(out)) out = out.replace(ATTRIBUTES, '');
  return out.replace(LONE_MARKS, '$1').replace(/\s+/g, ' ').trim();
}
