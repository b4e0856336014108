import type { AnswerThreshold } from '../api/types.js';

/** What GET /api/knowledge-base/answer-trade reports for one setting. */
export interface SettingTradeView {
  falseAnswerTarget: number;
  coveredAnsweredRight: number | null;
  uncoveredAnswered: number | null;
}

export interface AnswerTradeView {
  calibrated: boolean;
  settings: Record<AnswerThreshold, SettingTradeView>;
}

const percent = (share: number) => `${Math.round(share * 100)} %`;

/**
 * The agent form's sentence for a setting: what it does on this company's knowledge base, measured on questions
 * derived from its own documents. Null before the first calibration (no documents, or just uploaded) or without data.
 */
export function answerTradeSentence(trade: AnswerTradeView | undefined, setting: AnswerThreshold): string | null {
  const figures = trade?.calibrated ? trade.settings[setting] : undefined;
  if (figures === undefined || figures.coveredAnsweredRight === null || figures.uncoveredAnswered === null) return null;
  return `At this setting, about ${percent(figures.coveredAnsweredRight)} of questions your knowledge base covers are answered; about ${percent(figures.uncoveredAnswered)} of those it does not cover get a wrong answer.`;
}
