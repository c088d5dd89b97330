// The seeded generator (mulberry32) for the tests that draw random corpora: the same corpora on every run, so a
// failure names a corpus that can be drawn again. The app's own (src/core/seededRandom.ts), the same numbers.
export { seededRandom } from '../../src/core/seededRandom.ts';
