import { describe, expect, it } from 'vitest';
import { exampleQuestion } from '../../web/dashboard/src/lib/exampleQuestion.js';
import { countOf, formatNumber, wholeNumberLabels } from '../../web/dashboard/src/lib/format.js';
import { answerTradeSentence } from '../../web/dashboard/src/lib/answerTrade.js';

/** The dashboard's small wordings: the test message's example, counts with their noun, count axis labels. */

describe('exampleQuestion: the test message example drawn from a knowledge-base title', () => {
  it.each([
    ['Shipping', 'What about shipping?'],
    ['Returns and refunds.', 'What about returns and refunds?'],
    ['FAQ', 'What about FAQ?'],
    ['EU delivery', 'What about EU delivery?'],
    ['Do you ship abroad?', 'Do you ship abroad?'],
    ['  Opening   hours ', 'What about opening hours?'],
  ])('given the title %j, then %j', (title, question) => {
    expect(exampleQuestion(title)).toBe(question);
  });

  it('given no document, then no example', () => {
    expect(exampleQuestion(null)).toBeNull();
    expect(exampleQuestion('   ')).toBeNull();
  });
});

describe('countOf: a count and its noun', () => {
  it('is singular for exactly one, plural otherwise, with the number formatted', () => {
    expect(countOf(1, 'message')).toBe('1 message');
    expect(countOf(0, 'message')).toBe('0 messages');
    expect(countOf(2, 'message')).toBe('2 messages');
    expect(countOf(1204, 'conversation')).toBe('1,204 conversations');
    expect(countOf(3, 'reply', 'replies')).toBe('3 replies');
  });
});

describe('wholeNumberLabels: a count axis labels whole numbers only, each where its value is', () => {
  it('given splits between whole numbers (0, 0.5, 1, 1.5, 2), then no "2, 2, 1, 1, 0": the halves are blank', () => {
    expect(wholeNumberLabels([0, 0.5, 1, 1.5, 2], (v) => formatNumber(v))).toEqual(['0', '', '1', '', '2']);
  });
  it('given whole splits, then every label', () => {
    expect(wholeNumberLabels([0, 1, 2, 3], (v) => formatNumber(v))).toEqual(['0', '1', '2', '3']);
  });
});

describe('answerTradeSentence: what the agent form says a setting does on the company’s knowledge base', () => {
  const trade = {
    calibrated: true,
    settings: {
      strict: { falseAnswerTarget: 0.02, coveredAnsweredRight: 0.6, uncoveredAnswered: 0.02 },
      balanced: { falseAnswerTarget: 0.05, coveredAnsweredRight: 0.824, uncoveredAnswered: 0.075 },
      lenient: { falseAnswerTarget: 0.1, coveredAnsweredRight: 0.9, uncoveredAnswered: 0.2 },
    },
  };

  it('given a calibrated knowledge base, then the measured shares of the chosen setting, rounded', () => {
    expect(answerTradeSentence(trade, 'balanced')).toBe('At this setting, about 82 % of questions your knowledge base covers are answered; about 8 % of those it does not cover get a wrong answer.');
    expect(answerTradeSentence(trade, 'strict')).toContain('about 60 % of questions');
  });

  it('given no calibration yet (or no answer from the server), then no sentence', () => {
    expect(answerTradeSentence(undefined, 'balanced')).toBeNull();
    expect(answerTradeSentence({ ...trade, calibrated: false }, 'balanced')).toBeNull();
    expect(answerTradeSentence({ calibrated: true, settings: { ...trade.settings, balanced: { falseAnswerTarget: 0.05, coveredAnsweredRight: null, uncoveredAnswered: null } } }, 'balanced')).toBeNull();
  });
});
