/**
 * Answer-or-handoff benchmark of the builtin provider: does the default agent answer the questions its
 * knowledge base answers, from the right passage, and hand off the others?
 *
 *   npm run bench:answers              figures per setting and the precision/coverage curve, then every data set side by
 *                                      side (public sets, tiny knowledge bases, the fixtures), before and after the
 *                                      per-company calibration (domain/answers/calibration.ts); about 30 s
 *   npm run bench:answers -- --tune    the tuning part only: its misses, and a search over the evidence weights and the retrieval prior
 *   npm run bench:answers -- --features  the tuning part only: its feature table (CSV), the cross-validated choice of the
 *                                        learned decision's features and L2 penalty, and its refit (ANSWER_MODEL, confidence.ts)
 *
 * Data: test/fixtures/answers (four companies: shop, SaaS, bank, telecom; questions labelled with the passage
 * that answers them, or as unanswerable). Each knowledge base goes into a real knowledge index; each question
 * is searched as the reply pipeline searches it (5 passages) and answered by the real builtin provider.
 * Reported for the held-out part (never used for tuning), the tuning part and all questions:
 *   precision          right answers / answers given
 *   coverage           right answers / answerable questions
 *   false answers      unanswerable questions answered / unanswerable questions
 *   wrong passage      answerable questions answered from a wrong passage / answerable questions
 * the same on one-document knowledge bases (each company's documents alone, as in the quick start), and the
 * curve of precision and coverage as the evidence threshold moves (held-out part).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANSWER_THRESHOLDS, choosePassage, DEFAULT_ANSWER_THRESHOLD, EVIDENCE_THRESHOLDS, evidenceScore, type EvidenceWeights } from '../src/domain/answers/evidence.js';
import { featuresReport } from './support/answerModel.js';
import { baselineFigures, evaluate, evaluatePublic, oneDocumentDomains, publicFigures, publicThresholdFigures, settingFigures, thresholdFigures, tinyDomains, type EvaluatedQuestion, type Figures, type PublicRow } from './support/answerEval.js';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const fmt = (f: Figures) =>
  `precision ${f.precision.toFixed(3)}  coverage ${f.coverage.toFixed(3)}  false answers ${pct(f.falseAnswerRate)}  wrong passage ${pct(f.wrongPassageRate)}  (${f.right}/${f.answered} answers right; ${f.answerable} answerable, ${f.unanswerable} unanswerable)`;

const rows = await evaluate();
// The project's fixtures as they were before per-company calibration (the fixed thresholds), for the side-by-side table.
const rowsFixed = process.argv.includes('--tune') || process.argv.includes('--features') ? [] : await evaluate(undefined, { calibrate: false });
const heldOut = rows.filter((r) => r.heldOut);
const tuning = rows.filter((r) => !r.heldOut);

const tuningOnly = process.argv.includes('--tune') || process.argv.includes('--features');
const small = tuningOnly ? [] : await evaluate(oneDocumentDomains());

if (process.argv.includes('--features')) {
  const csvPath = join(tmpdir(), 'answers-features.csv');
  featuresReport(tuning, (csv) => writeFileSync(csvPath, csv));
  console.log(`\nfeature table: ${csvPath}`);
} else if (process.argv.includes('--tune')) {
  tune(tuning);
} else {
  await report();
}

async function report() {
  console.log(`answer-or-handoff: ${rows.length} questions (${heldOut.length} held out, ${tuning.length} for tuning), domains ${[...new Set(rows.map((r) => r.domain))].join(', ')}\n`);
  for (const [name, part] of [['held-out', heldOut], ['tuning', tuning], ['all', rows]] as const) {
    console.log(`${name}:`);
    for (const setting of ANSWER_THRESHOLDS) {
      const mark = setting === DEFAULT_ANSWER_THRESHOLD ? ' (default)' : '';
      console.log(`  ${`${setting}${mark}`.padEnd(20)} ≥ ${EVIDENCE_THRESHOLDS[setting].toFixed(3)}  ${fmt(settingFigures(part, setting))}`);
    }
    console.log(`  ${'before (coverage ½)'.padEnd(28)}  ${fmt(baselineFigures(part))}`);
  }
  console.log('\nheld-out, per kind at the default setting (share handed off):');
  for (const kind of ['answerable', 'near-miss', 'other-country', 'other-product', 'out-of-scope'] as const) {
    const of = heldOut.filter((r) => r.kind === kind);
    const handedOff = of.filter((r) => r.outcome[DEFAULT_ANSWER_THRESHOLD] === 'handoff').length;
    console.log(`  ${kind.padEnd(14)} ${String(of.length).padStart(3)} questions, ${pct(of.length ? handedOff / of.length : 0)} handed off`);
  }
  console.log('\nheld-out, per domain at the default setting:');
  for (const domain of [...new Set(rows.map((r) => r.domain))]) console.log(`  ${domain.padEnd(8)} ${fmt(settingFigures(heldOut.filter((r) => r.domain === domain), DEFAULT_ANSWER_THRESHOLD))}`);

  console.log('\none-document knowledge bases (each company\'s documents alone; questions another document answers count as unanswerable):');
  for (const [name, part] of [['held-out', small.filter((r) => r.heldOut)], ['all', small]] as const) {
    console.log(`${name}:`);
    for (const setting of ANSWER_THRESHOLDS) {
      const mark = setting === DEFAULT_ANSWER_THRESHOLD ? ' (default)' : '';
      console.log(`  ${`${setting}${mark}`.padEnd(20)} ≥ ${EVIDENCE_THRESHOLDS[setting].toFixed(3)}  ${fmt(settingFigures(part, setting))}`);
    }
    console.log(`  ${'before (coverage ½)'.padEnd(28)}  ${fmt(baselineFigures(part))}`);
  }

  console.log("\nprecision/coverage curve (held-out), answering when the chosen passage's probability of a right answer ≥ threshold:");
  console.log('  threshold  precision  coverage  false answers');
  for (let t = 0; t <= 1.0001; t += 0.05) {
    const f = thresholdFigures(heldOut, t);
    const marks = ANSWER_THRESHOLDS.filter((s) => Math.abs(EVIDENCE_THRESHOLDS[s] - t) < 1e-9);
    console.log(`  ${t.toFixed(2).padStart(9)}  ${f.precision.toFixed(3).padStart(9)}  ${f.coverage.toFixed(3).padStart(8)}  ${pct(f.falseAnswerRate).padStart(13)}${marks.length ? `   ← ${marks.join(', ')}` : ''}`);
  }
  await publicReport();
}

/**
 * Every data set side by side at each setting: the public sets (test/fixtures/answers/public: held-out part by
 * entry; SQuAD 2.0 wholly held out, never tuned on), the tiny knowledge bases and the project's fixtures, each
 * before (one fixed threshold for every company) and after (each knowledge base's own calibration).
 */
async function publicReport() {
  const { rows: pub, calibrations } = await evaluatePublic();
  const tinyFixed = await evaluate(tinyDomains(), { calibrate: false });
  const tinyCalibrated = await evaluate(tinyDomains());
  const line = (label: string, before: Figures, after: Figures) =>
    console.log(`  ${label.padEnd(34)} before: ${short(before)}   after: ${short(after)}`);
  const short = (f: Figures) => `precision ${f.precision.toFixed(3)}  covered answered right ${f.coverage.toFixed(3)}  false answers ${pct(f.falseAnswerRate).padStart(6)}`;
  console.log('\nall data sets, held-out parts (before: the fixed thresholds; after: calibrated on each knowledge base):');
  for (const setting of ANSWER_THRESHOLDS) {
    console.log(`${setting}${setting === DEFAULT_ANSWER_THRESHOLD ? ' (default)' : ''}:`);
    for (const set of [...new Set(pub.map((r) => r.set))]) {
      const held = pub.filter((r) => r.set === set && r.part === 'held-out' && r.kind !== 'adversarial');
      line(`${set} (${held.filter((r) => r.answerable).length}/${held.filter((r) => !r.answerable).length})`, publicFigures(held, setting, 'fixed'), publicFigures(held, setting, 'calibrated'));
    }
    line(`tiny knowledge bases (${tinyFixed.filter((r) => r.title !== null).length}/${tinyFixed.filter((r) => r.title === null).length})`, settingFigures(tinyFixed, setting), settingFigures(tinyCalibrated, setting));
    const fixturesHeld = rowsFixed.filter((r) => r.heldOut);
    line(`project fixtures (${fixturesHeld.filter((r) => r.title !== null).length}/${fixturesHeld.filter((r) => r.title === null).length})`, settingFigures(fixturesHeld, setting), settingFigures(heldOut, setting));
  }
  const adversarial = pub.filter((r) => r.kind === 'adversarial');
  if (adversarial.length > 0) {
    const answered = (which: 'fixed' | 'calibrated') => adversarial.filter((r) => r[which][DEFAULT_ANSWER_THRESHOLD] !== 'handoff').length / adversarial.length;
    console.log(`\nSQuAD 2.0's own unanswerable questions (written against the paragraph, ${adversarial.length}; not in the figures above): answered at the default ${pct(answered('fixed'))} before, ${pct(answered('calibrated'))} after`);
  }
  console.log('\ntuning parts at the default setting (what the calibration constants were chosen on):');
  for (const set of [...new Set(pub.filter((r) => r.part === 'tuning').map((r) => r.set))]) {
    const tuningRows = pub.filter((r) => r.set === set && r.part === 'tuning');
    line(set, publicFigures(tuningRows, DEFAULT_ANSWER_THRESHOLD, 'fixed'), publicFigures(tuningRows, DEFAULT_ANSWER_THRESHOLD, 'calibrated'));
  }
  console.log('\neach knowledge base\'s calibration (its own probes: raw threshold, probes answered rightly, left-out probes answered):');
  for (const [set, calibration] of calibrations) {
    if (calibration === null) continue;
    const parts = ANSWER_THRESHOLDS.map((s) => `${s} ≥ ${calibration.settings[s].threshold.toFixed(3)} (${pct(calibration.settings[s].coveredAnswered)} / ${pct(calibration.settings[s].uncoveredAnswered)})`);
    console.log(`  ${set.padEnd(10)} ${calibration.answerable}+${calibration.unanswerable} probes: ${parts.join('  ')}`);
  }
  console.log('\ncurve per public set (held-out, one fixed threshold on the raw probability): what bounds the trade');
  console.log('  threshold' + [...new Set(pub.map((r) => r.set))].map((s) => `  ${s.padEnd(30)}`).join(''));
  for (let t = 0.5; t <= 0.9801; t += 0.04) {
    const cells = [...new Set(pub.map((r) => r.set))].map((set) => {
      const f = publicThresholdFigures(pub.filter((r: PublicRow) => r.set === set && r.part === 'held-out' && r.kind !== 'adversarial'), t);
      return `  p ${f.precision.toFixed(2)} c ${f.coverage.toFixed(2)} f ${pct(f.falseAnswerRate).padStart(6)}`.padEnd(32);
    });
    console.log(`  ${t.toFixed(2).padStart(9)}${cells.join('')}`);
  }
}

/** The tuning part only: what the default gets wrong, and the best weights by a grid search (held-out part untouched). */
function tune(part: EvaluatedQuestion[]) {
  for (const setting of ANSWER_THRESHOLDS) console.log(`${setting.padEnd(9)} ${fmt(settingFigures(part, setting))}`);
  console.log('\ncurve (tuning part):');
  for (let t = 0.3; t <= 0.9001; t += 0.025) {
    const f = thresholdFigures(part, t);
    console.log(`  ${t.toFixed(3)}  ${fmt(f)}`);
  }
  console.log('\nmisses at the default:');
  for (const r of part) {
    const outcome = r.outcome[DEFAULT_ANSWER_THRESHOLD];
    const bad = (r.title === null && outcome !== 'handoff') || (r.title !== null && outcome !== 'right');
    if (!bad) continue;
    const f = r.best?.features;
    const top = choosePassage(r.passages);
    console.log(
      `  [${r.domain}/${r.kind}] ${outcome.padEnd(7)} ev ${r.best?.evidence.toFixed(2) ?? '-'} cov ${f?.coverage.toFixed(2) ?? '-'} miss ${f?.missedRare.toFixed(2) ?? '-'} title ${f?.title.toFixed(2) ?? '-'} margin ${f?.margin.toFixed(2) ?? '-'}  "${r.q}" → ${top ? `${top.title} › ${top.text.slice(0, 40).replace(/\n/g, ' ')}` : 'nothing'}${r.title ? `  (want ${r.title}${r.section ? ` › ${r.section}` : ''})` : ''}`,
    );
  }
  // Grid search: weights and threshold maximising coverage subject to precision ≥ 0.93 and false answers ≤ 7 % on the tuning part.
  let best: { w: EvidenceWeights; prior: number; t: number; f: Figures } | null = null;
  // The best of each answer-type weight, to see how much the answer-type check moves.
  const bestPerType = new Map<number, { w: EvidenceWeights; prior: number; t: number; f: Figures }>();
  for (const answerType of [0, 0.1, 0.2, 0.3, 0.5])
    for (const prior of [0, 0.2, 0.3, 0.5])
      for (const missedRare of [0, 0.1, 0.2, 0.25, 0.3, 0.4])
        for (const title of [0, 0.1, 0.15, 0.2])
          for (const margin of [0, 0.1, 0.2, 0.3]) {
            const w = { coverage: 1, missedRare, title, margin, answerType };
            const rescored = part.map((r) => {
              const chosen = choosePassage(r.passages.map((p) => ({ score: p.score, evidence: evidenceScore(p.evidenceFeatures!, w), right: p.right })), prior);
              return { ...r, best: chosen };
            });
            for (let t = 0.2; t <= 0.9; t += 0.025) {
              const f = thresholdFigures(rescored, t);
              if (f.precision < 0.93 || f.falseAnswerRate > 0.07) continue;
              const entry = { w, prior, t, f };
              if (best === null || f.coverage > best.f.coverage) best = entry;
              const ofType = bestPerType.get(answerType);
              if (ofType === undefined || f.coverage > ofType.f.coverage) bestPerType.set(answerType, entry);
            }
          }
  for (const b of bestPerType.values()) console.log(`answer type ${String(b.w.answerType).padEnd(4)}: ${JSON.stringify(b.w)} prior ${b.prior} threshold ${b.t.toFixed(3)}  ${fmt(b.f)}`);
  console.log('\nbest on the tuning part:', best ? `${JSON.stringify(best.w)} prior ${best.prior} threshold ${best.t.toFixed(3)}  ${fmt(best.f)}` : 'none meets the constraints');
}
