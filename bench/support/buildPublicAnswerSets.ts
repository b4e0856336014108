/**
 * Builds the public answer-or-handoff sets (test/fixtures/answers/public/*.json) from their sources, so that the
 * committed subsets can be checked and rebuilt. Not run by the benchmark; run once by hand:
 *
 *   tsx bench/support/buildPublicAnswerSets.ts <stackExchange-FAQ.json> <CovidFAQ query_answer_pairs.json> <SQuAD dev-v2.0.json>
 *
 * Sources and licences: test/fixtures/answers/public/README.md. Every choice below (which entries stay out of the
 * knowledge base, which questions are held out) is fixed by a hash of the entry's text, before any tuning.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fnv1a } from './answerEval.js';

export interface PublicSet {
  name: string;
  domain: string;
  source: string;
  licence: string;
  /** True: no question of this set is ever used for tuning (the whole set is held out). */
  heldOutWhole: boolean;
  documents: { id: string; title: string; content: string }[];
  /** doc: the ids of the knowledge-base documents that answer it; [] when the knowledge base does not (its entry was held out of it). */
  questions: { q: string; docs: string[]; part: 'tuning' | 'held-out'; kind: 'answerable' | 'entry-left-out' | 'adversarial' }[];
}

const OUT = new URL('../../test/fixtures/answers/public/', import.meta.url);
/** An entry stays out of the knowledge base (its questions become unanswerable near-misses) for 1 in 5 by hash. */
const leftOut = (key: string) => fnv1a(`out:${key}`) % 5 === 0;
/** The held-out part: 2 in 5 entries by hash (split by entry: all questions of an entry are on one side). */
const part = (key: string): 'tuning' | 'held-out' => (fnv1a(`part:${key}`) % 5 < 2 ? 'held-out' : 'tuning');
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, text.lastIndexOf(' ', max))}…`);
const byHash = <T>(items: T[], key: (t: T) => string) => [...items].sort((a, b) => fnv1a(key(a)) - fnv1a(key(b)));

function stackFaq(path: string): PublicSet {
  const threads = (JSON.parse(readFileSync(path, 'utf8')) as { root: { qapair: { rephr: string[] | string; question: string; answer: string[] | string }[] } }).root.qapair;
  const set: PublicSet = {
    name: 'stackfaq',
    domain: 'software and web services help (StackExchange web applications threads)',
    source: 'StackFAQ (Karan & Šnajder 2018), via github.com/ML-Recipes/BERT-FAQ data/StackFAQ/stackExchange-FAQ.json',
    licence: 'StackExchange content CC BY-SA; the rephrasings by TakeLab (FER Zagreb), released for research; repository MIT',
    heldOutWhole: false,
    documents: [],
    questions: [],
  };
  threads.forEach((t, i) => {
    const id = `t${i}`;
    const answers = ([] as (string | null)[]).concat(t.answer).filter((a): a is string => typeof a === 'string').map((a) => a.replace(/\s+/g, ' ').trim());
    const out = leftOut(t.question);
    if (!out) set.documents.push({ id, title: t.question.trim(), content: clip(answers.slice(0, 2).join('\n\n'), 1200) });
    const rephrasings = ([] as (string | null)[]).concat(t.rephr).filter((r): r is string => typeof r === 'string').map((r) => r.trim()).filter((r) => r.split(/\s+/).length >= 3);
    for (const q of byHash(rephrasings, (r) => r).slice(0, 3)) set.questions.push({ q, docs: out ? [] : [id], part: part(t.question), kind: out ? 'entry-left-out' : 'answerable' });
  });
  return set;
}

function covidFaq(path: string): PublicSet {
  const rows = JSON.parse(readFileSync(path, 'utf8')) as { query_type: string; question: string; answer: string; id: string }[];
  const clean = (a: string) => a.replace(/\[\[[^\]]*\]\]/g, '').replace(/\s+/g, ' ').trim();
  const faqs = rows.filter((r) => r.query_type === 'faq');
  const set: PublicSet = {
    name: 'covidfaq',
    domain: 'public health FAQ (COVID-19), real user queries',
    source: 'CovidFAQ (Poliak et al. 2020, "Collecting Verified COVID-19 Question Answer Pairs"), via github.com/ML-Recipes/BERT-FAQ data/CovidFAQ/query_answer_pairs.json',
    licence: 'released for research by the authors; repository MIT; answers from public-health agencies’ FAQ pages',
    heldOutWhole: false,
    documents: [],
    questions: [],
  };
  const idsByAnswer = new Map<string, string[]>();
  for (const f of faqs) {
    if (leftOut(f.question)) continue;
    set.documents.push({ id: `f${f.id}`, title: f.question.trim(), content: clip(clean(f.answer), 1500) });
    idsByAnswer.set(clean(f.answer), [...(idsByAnswer.get(clean(f.answer)) ?? []), `f${f.id}`]);
  }
  const faqOf = new Map(faqs.map((f) => [clean(f.answer), f]));
  const perFaq = new Map<string, string[]>();
  for (const r of rows.filter((r) => r.query_type !== 'faq')) {
    const key = clean(r.answer);
    if (r.question.trim().split(/\s+/).length < 2) continue;
    perFaq.set(key, [...(perFaq.get(key) ?? []), r.question.trim()]);
  }
  for (const [answer, queries] of perFaq) {
    const faq = faqOf.get(answer)!;
    const docs = idsByAnswer.get(answer) ?? [];
    for (const q of byHash([...new Set(queries)], (x) => x).slice(0, 4)) set.questions.push({ q, docs, part: part(faq.question), kind: docs.length ? 'answerable' : 'entry-left-out' });
  }
  return set;
}

function squad(path: string): PublicSet {
  const data = (JSON.parse(readFileSync(path, 'utf8')) as { data: { title: string; paragraphs: { context: string; qas: { question: string; is_impossible: boolean }[] }[] }[] }).data;
  const set: PublicSet = {
    name: 'squad2',
    domain: 'encyclopedia articles (Wikipedia paragraphs), reading-comprehension questions',
    source: 'SQuAD 2.0 dev set (Rajpurkar, Jia & Liang 2018), as split in github.com/chrischute/squad data/dev-v2.0.json',
    licence: 'CC BY-SA 4.0 (SQuAD); repository MIT',
    heldOutWhole: true,
    documents: [],
    questions: [],
  };
  for (const article of data.slice(0, 6)) {
    article.paragraphs.slice(0, 12).forEach((p, i) => {
      const id = `${article.title}#${i}`;
      const title = article.title.replace(/_/g, ' ');
      const out = leftOut(p.context);
      if (!out) set.documents.push({ id, title, content: p.context });
      for (const qa of byHash(p.qas.filter((x) => !x.is_impossible), (x) => x.question).slice(0, 2)) set.questions.push({ q: qa.question.trim(), docs: out ? [] : [id], part: 'held-out', kind: out ? 'entry-left-out' : 'answerable' });
      if (!out) for (const qa of byHash(p.qas.filter((x) => x.is_impossible), (x) => x.question).slice(0, 1)) set.questions.push({ q: qa.question.trim(), docs: [], part: 'held-out', kind: 'adversarial' });
    });
  }
  return set;
}

const [stackPath, covidPath, squadPath] = process.argv.slice(2);
if (!stackPath || !covidPath || !squadPath) throw new Error('usage: buildPublicAnswerSets.ts <stackExchange-FAQ.json> <CovidFAQ query_answer_pairs.json> <SQuAD dev-v2.0.json>');
for (const set of [stackFaq(stackPath), covidFaq(covidPath), squad(squadPath)]) {
  writeFileSync(new URL(`${set.name}.json`, OUT), `${JSON.stringify(set, null, 1)}\n`);
  const count = (k: string) => set.questions.filter((q) => q.kind === k).length;
  console.log(`${set.name}: ${set.documents.length} documents, ${set.questions.length} questions (${count('answerable')} answerable, ${count('entry-left-out')} entry left out, ${count('adversarial')} adversarial), ${set.questions.filter((q) => q.part === 'held-out').length} held out`);
}
