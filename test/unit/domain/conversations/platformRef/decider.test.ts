import { describe, expect, it } from 'vitest';
import { platformRefDecider } from '../../../../../src/domain/conversations/platformRef/decider.js';
import type { PlatformRefEvent } from '../../../../../src/domain/conversations/platformRef/events.js';
import { specFor } from '../../../../support/gwt.js';

const CONV1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CONV2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const ref = specFor(platformRefDecider);
const link = (conversationId: string, now = T1) => ({ type: 'LinkPlatformRef', conversationId, now }) as const;
const linked = (conversationId: string, at = T0): PlatformRefEvent => ({ type: 'PlatformRefLinked', data: { conversationId, at } });

describe('platform ref decider (which conversation a platform request or dialog id belongs to)', () => {
  it('links an id seen for the first time to its conversation', () => {
    const state = ref.given([]).when(link(CONV1, T0)).then([linked(CONV1)]);
    expect(state).toEqual({ conversationId: CONV1 });
  });

  it('linking it to the same conversation again records nothing', () => {
    ref.given([linked(CONV1)]).when(link(CONV1)).then([]);
  });

  it('the newest link wins: an id the platform reuses for another customer moves with it', () => {
    const state = ref.given([linked(CONV1)]).when(link(CONV2)).then([linked(CONV2, T1)]);
    expect(state).toEqual({ conversationId: CONV2 });
  });
});
