import { describe, it } from 'vitest';
import { noteSharingDecider } from '../../../../../src/domain/company/noteSharing/decider.js';
import { specFor } from '../../../../support/gwt.js';

const spec = specFor(noteSharingDecider);
const T = '2026-01-01T00:00:00.000Z';
const on = { type: 'NoteSharingConfigured' as const, data: { shareWithAi: true, by: 'user:u1', at: T } };

describe('note sharing with the AI', () => {
  it('is off until a manager turns it on; turning it on records who did', () => {
    spec.given([]).when({ type: 'ConfigureNoteSharing', shareWithAi: true, by: 'user:u1', now: T }).then([on]);
  });

  it('setting what is already set records nothing (off at first, on after it was turned on)', () => {
    spec.given([]).when({ type: 'ConfigureNoteSharing', shareWithAi: false, by: 'user:u1', now: T }).then([]);
    spec.given([on]).when({ type: 'ConfigureNoteSharing', shareWithAi: true, by: 'user:u2', now: T }).then([]);
  });

  it('turns off again', () => {
    spec.given([on]).when({ type: 'ConfigureNoteSharing', shareWithAi: false, by: 'user:u2', now: T }).then([{ type: 'NoteSharingConfigured', data: { shareWithAi: false, by: 'user:u2', at: T } }]);
  });
});
