// wink-porter2-stemmer ships no typings: one function, a lowercase word to its Snowball English stem.
declare module 'wink-porter2-stemmer' {
  export default function stem(word: string): string;
}
