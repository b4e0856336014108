import { describe, expect, it } from 'vitest';
import { aiBacklogText, formatAge } from '../../web/dashboard/src/lib/aiBacklog.js';

const now = Date.parse('2026-01-01T12:00:00.000Z');

describe('the dashboard banner when AI replies are delayed', () => {
  it('says how many conversations wait (with thousands separators) and how old the oldest is', () => {
    expect(aiBacklogText({ waiting: 1234, oldestWaitingSince: '2026-01-01T11:57:00.000Z', delayed: true }, now)).toBe(
      'AI replies are delayed: 1,234 conversations waiting, oldest 3 min',
    );
    expect(aiBacklogText({ waiting: 1, oldestWaitingSince: '2026-01-01T11:58:30.000Z', delayed: true }, now)).toBe('AI replies are delayed: 1 conversation waiting, oldest 1 min');
  });

  it('shows nothing while the answers are not delayed, or before the first answer from the server', () => {
    expect(aiBacklogText({ waiting: 40, oldestWaitingSince: '2026-01-01T11:59:50.000Z', delayed: false }, now)).toBeNull();
    expect(aiBacklogText({ waiting: 0, oldestWaitingSince: null, delayed: false }, now)).toBeNull();
    expect(aiBacklogText(null, now)).toBeNull();
  });

  it('the age in whole seconds, minutes or hours; never negative when the clocks disagree', () => {
    expect(formatAge('2026-01-01T11:59:15.000Z', now)).toBe('45 s');
    expect(formatAge('2026-01-01T11:59:00.000Z', now)).toBe('1 min');
    expect(formatAge('2026-01-01T11:00:01.000Z', now)).toBe('59 min');
    expect(formatAge('2026-01-01T09:50:00.000Z', now)).toBe('2 h');
    expect(formatAge('2026-01-01T12:00:05.000Z', now)).toBe('0 s');
  });
});
