// Stop words: function words that carry no topic, left out of index terms and concepts.
// English: the usual ~180 closed-class words (articles, pronouns, auxiliaries, prepositions, conjunctions).
// Chinese: common particles, pronouns, conjunctions, measure words and question words (哪些, 如何: a question's
// own wording must not seed the walk), as the word segmenter returns them.

const ENGLISH = `a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
each either else ever few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it it's its itself
just let's may me might more most must mustn't my myself neither no nor not now of off on once one only or other
ought our ours ourselves out over own same shall shan't she she'd she'll she's should shouldn't so some such than
that that's the their theirs them themselves then there there's these they they'd they'll they're they've this
those through thus to too under until up upon us very was wasn't we we'd we'll we're we've were weren't what
what's when when's where where's whether which while who who's whom whose why why's will with within without won't
would wouldn't yet you you'd you'll you're you've your yours yourself yourselves`;

const CHINESE = `的 了 和 是 在 我 你 他 她 它 们 我们 你们 他们 她们 它们 这 那 这个 那个 这些 那些 之 与 及 或 而 并 但
但是 因为 所以 如果 虽然 然而 而且 并且 就 都 也 还 又 再 才 只 很 太 更 最 不 没 没有 被 把 给 对 从 向 于 以 为 为了
由 由于 将 就是 一个 一 个 些 有 着 过 吗 呢 吧 啊 呀 嘛 么 得 地 上 下 中 里 其 此 该 各 等 等等 自己 什么 怎么 这样 那样
之一 以及 已 已经 可以 会 能 要 让 使 即 则 却 且 啦 哦 嗯
哪 哪些 哪个 哪里 哪儿 如何 怎样 怎么样 为什么 为何 多少 几 谁 是否 是不是 能否 请问`;

const STOP_WORDS = new Set(
  [...ENGLISH.split(/\s+/), ...CHINESE.split(/\s+/)].filter((word) => word.length > 0),
);

/** True for a function word; `term` must already be lowercased (as word tokens are). Handles ’ as '. */
export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term) || (term.includes('’') && STOP_WORDS.has(term.replace(/’/g, "'")));
}
