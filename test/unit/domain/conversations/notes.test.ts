import { describe, expect, it } from 'vitest';
import { resolveMentions } from '../../../../src/domain/conversations/notes.js';

const ANA = { userId: 'u-ana', name: 'Ana Lima', email: 'ana@acme.test' };
const ANABEL = { userId: 'u-anabel', name: 'Anabel', email: 'belle@acme.test' };
const BOB = { userId: 'u-bob', name: null, email: 'bob.smith@acme.test' };
const team = [ANA, ANABEL, BOB];

describe('resolveMentions', () => {
  it('finds teammates by full name, first name or email local part, case-insensitively, in order of mention', () => {
    expect(resolveMentions('@bob.smith and @Ana Lima, please', team)).toEqual(['u-bob', 'u-ana']);
    expect(resolveMentions('ping @ana', team)).toEqual(['u-ana']);
  });

  it('a handle must end where the name ends: @Anabel is Anabel, not Ana', () => {
    expect(resolveMentions('@Anabel?', team)).toEqual(['u-anabel']);
  });

  it('an email address, an unknown name or a bare @ mention nobody; a name twice counts once', () => {
    expect(resolveMentions('mail ana@acme.test, ask @carol, @ alone', team)).toEqual([]);
    expect(resolveMentions('@Ana @ana', team)).toEqual(['u-ana']);
  });

  it('a name with pattern characters is matched as plain text', () => {
    expect(resolveMentions('@(a+)+b hi', [{ userId: 'u-x', name: '(a+)+b', email: 'x@y.z' }])).toEqual(['u-x']);
  });
});
