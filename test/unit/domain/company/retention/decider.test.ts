import { describe, it } from 'vitest';
import { retentionDecider } from '../../../../../src/domain/company/retention/decider.js';
import { specFor } from '../../../../support/gwt.js';

const spec = specFor(retentionDecider);
const at = '2026-01-01T10:00:00.000Z';
const set = (conversationDays: number | null) => ({ type: 'SetRetentionPolicy' as const, conversationDays, by: 'user:u1', now: at });

describe('retention decider', () => {
  it('given nothing (keep forever), setting a period records it', () => {
    spec.given([]).when(set(30)).then([{ type: 'RetentionPolicySet', data: { conversationDays: 30, by: 'user:u1', at } }]);
  });

  it('setting what is set records nothing; null after a period keeps everything again', () => {
    const thirty = { type: 'RetentionPolicySet' as const, data: { conversationDays: 30, by: 'user:u1', at } };
    spec.given([thirty]).when(set(30)).then([]);
    spec.given([]).when(set(null)).then([]);
    spec.given([thirty]).when(set(null)).then([{ type: 'RetentionPolicySet', data: { conversationDays: null, by: 'user:u1', at } }]);
  });

  it('a period outside 1–3650 whole days is refused', () => {
    for (const days of [0, -1, 3651, 2.5]) spec.given([]).when(set(days)).thenThrows('VALIDATION_ERROR');
  });
});
