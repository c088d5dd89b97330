// Recognises a corpus-wide question ("What is this about?", "What are the main themes?", "这些文档讲什么？"): one
// that asks what the library as a whole holds, which the lexical layer cannot answer because it has no content word.
// It is recognised by two things together, never by a list of exact questions: every word of it is a function word
// or a word about the library and its contents (so "What is Vue about?" or "the main themes of Hamlet" are ordinary
// questions), and it holds a cue that asks for the contents (about, topics, themes, cover, summarize, overview…;
// 讲什么, 主要内容, 主题, 概括…).

/** Words that ask what a text holds: one must be there. */
const CUES = new Set([
  'about',
  'topic',
  'topics',
  'theme',
  'themes',
  'subject',
  'subjects',
  'cover',
  'covers',
  'covered',
  'covering',
  'summary',
  'summaries',
  'summarize',
  'summarise',
  'summarizing',
  'summarising',
  'overview',
  'gist',
  'outline',
  'contain',
  'contains',
  'content',
  'contents',
  'discuss',
  'discusses',
  'discussed',
  'describe',
  'describes',
]);

/**
 * Words that say nothing of a subject: function words, and words naming the library, its parts or the asking
 * itself. A question made only of these (and a cue) asks about the whole library.
 */
const NEUTRAL = new Set(
  (
    'a an the this these that those it its they them their there here what which who whom whose why how ' +
    'is are was were be been being am do does did done doing has have had having can could would will shall ' +
    'should may might must of in on at for to from by with into over across within and or but so as ' +
    'i me my we us our you your please tell give show list let know want like need kind kinds sort sorts type ' +
    'types all whole entire overall main key major central principal general broad big high level brief briefly ' +
    'short quick quickly some any most mostly mainly largely generally roughly basically mean means many much ' +
    'library libraries document documents doc docs file files text texts collection collections corpus folder ' +
    'folders material materials source sources book books page pages set dataset data repository repo knowledge ' +
    'base everything anything stuff thing things item items part parts uploaded added dropped loaded imported ' +
    'here got get go going say says said talk talks talking deal deals dealing include includes included ' +
    'including cover area areas idea ideas point points question questions concept concepts high-level ' +
    'covered summarize in-here just really actually also about'
  ).split(' '),
);

/** Chinese cue phrases that ask what a text holds. */
const ZH_CUES = [
  '讲什么',
  '讲了什么',
  '讲的是什么',
  '讲些什么',
  '说什么',
  '说了什么',
  '关于什么',
  '是关于',
  '主要内容',
  '内容',
  '主题',
  '话题',
  '概括',
  '概述',
  '总结',
  '摘要',
  '涵盖',
  '包含',
  '包括什么',
  '讨论',
  '介绍了什么',
  '大意',
];

/** Chinese words that say nothing of a subject (longest first when they are removed). */
const ZH_NEUTRAL = [
  '这些文档',
  '这些文件',
  '这些资料',
  '这个库',
  '这些',
  '这个',
  '那些',
  '文档',
  '文件',
  '资料',
  '文章',
  '材料',
  '知识库',
  '资料库',
  '库里',
  '库',
  '书',
  '全部',
  '所有',
  '整体',
  '总体',
  '主要',
  '大概',
  '都',
  '是',
  '的',
  '了',
  '吗',
  '呢',
  '吧',
  '啊',
  '什么',
  '哪些',
  '有',
  '讲',
  '说',
  '写',
  '请',
  '一下',
  '下',
  '帮我',
  '我',
  '给',
  '关于',
  '里面',
  '里',
  '中',
  '和',
  '与',
  '及',
  '些',
  '个',
  '在',
  '介绍',
  '简单',
  '简要',
];

/** Whether a question asks what the whole library is about (see the file's head). */
export function isCorpusQuestion(question: string): boolean {
  const text = question.normalize('NFKC').toLowerCase();
  if (/[\u3400-\u9fff]/.test(text)) return isChineseCorpusQuestion(text);
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  if (words.length === 0 || words.length > 16) return false;
  let cue = false;
  for (const raw of words) {
    const word = raw.replace(/['’]s$/, '').replace(/['’]/g, '');
    if (CUES.has(word)) {
      cue = true;
      continue;
    }
    if (!NEUTRAL.has(word) && !NEUTRAL.has(word.replace(/s$/, ''))) return false;
  }
  return cue;
}

function isChineseCorpusQuestion(text: string): boolean {
  if (text.length > 40) return false;
  let rest = text.replace(/[\s\p{P}\p{S}]/gu, '');
  const cue = ZH_CUES.some((c) => rest.includes(c));
  if (!cue) return false;
  for (const c of [...ZH_CUES, ...ZH_NEUTRAL].sort((a, b) => b.length - a.length))
    rest = rest.split(c).join('');
  return rest.length === 0;
}
