import { describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/domain/catalog.js';
import { conversationEvents } from '../../../src/domain/conversations/events.js';
import { defineReactor } from '../../../src/processing/reactor.js';
import { allReactors } from '../../../src/processing/allReactors.js';

describe('reactors', () => {
  it('each has its own name (its checkpoint key) and reacts only to event types the catalog defines', () => {
    const names = allReactors.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const reactor of allReactors) {
      expect(reactor.eventTypes.length).toBeGreaterThan(0);
      for (const type of reactor.eventTypes) expect(eventCatalog[type], `${reactor.name}: ${type}`).toBeDefined();
    }
  });

  it('defineReactor refuses an event type its schemas do not define', () => {
    expect(() =>
      defineReactor(conversationEvents, {
        name: 'typo',
        eventTypes: ['MessageRecieved' as 'MessageReceived'],
        start: () => async () => {},
      }),
    ).toThrow(/no schema for event type MessageRecieved/);
  });
});
