import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../../../src/domain/company/redaction/redact.js';

const redact = (text: string) => createRedactor().redact(text);

describe('redaction before the model: what is replaced', () => {
  it.each([
    ['Mail me at jane.doe+orders@example.co.uk please', 'Mail me at [EMAIL_1] please'],
    ['<JANE@Example.org>', '<[EMAIL_1]>'],
    ['write to a_b-c@mail-server.example.com.', 'write to [EMAIL_1].'],
    ['Call +44 20 7946 0958 today', 'Call [PHONE_1] today'],
    ['Call +4915112345678', 'Call [PHONE_1]'],
    ['+1 (555) 123-4567', '[PHONE_1]'],
    ['my number: 020 7946 0958', 'my number: [PHONE_1]'],
    ['(555) 123-4567 or 555-123-4567', '[PHONE_1] or [PHONE_1]'],
    ['06 12 34 56 78', '[PHONE_1]'],
    ['card 4111 1111 1111 1111 exp 12/27', 'card [CARD_1] exp 12/27'],
    ['4111-1111-1111-1111', '[CARD_1]'],
    ['5500005555555559.', '[CARD_1].'],
    ['IBAN DE89 3704 0044 0532 0130 00 thanks', 'IBAN [IBAN_1] thanks'],
    ['GB82WEST12345698765432', '[IBAN_1]'],
    ['fr14 2004 1010 0505 0001 3m02 606', '[IBAN_1]'],
  ])('%j → %j', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('numbers each kind on its own, and the same value (any case or spacing) is the same placeholder', () => {
    const r = createRedactor();
    expect(r.redact('a@x.io, b@x.io and 4111111111111111')).toBe('[EMAIL_1], [EMAIL_2] and [CARD_1]');
    expect(r.redact('again: A@X.IO, card 4111 1111 1111 1111')).toBe('again: [EMAIL_1], card [CARD_1]');
    expect(r.count).toBe(3);
  });
});

describe('redaction before the model: look-alikes pass through untouched', () => {
  it.each([
    'Order 123456789012 has not arrived',
    'order #4711-0815-2024',
    'It was delivered on 2024-01-15 10:30, or 15.01.2024',
    'version 10.4.1, build 1.2.3.4567',
    'server at 192.168.100.200',
    'card 4111 1111 1111 1112 (fails Luhn)',
    'IBAN DE89 3704 0044 0532 0130 02 (bad check digits)',
    'just an @ sign, a@b, user@localhost, @handle and foo@bar.c',
    'price 1,234,567.89 EUR and 12 345 678',
    'tracking AB12CD34EF56GH78',
    'a 20-digit reference 12345678901234567890',
    'already a placeholder: [EMAIL_1]',
  ])('%j', (input) => {
    expect(redact(input)).toBe(input);
  });
});

describe('putting the values back into the answer', () => {
  it('replaces the placeholders the model used, once each or many times; unknown ones stay', () => {
    const r = createRedactor();
    r.redact('I am jane@example.org, call +44 20 7946 0958');
    expect(r.restore('We wrote to [EMAIL_1] and will call [PHONE_1]; [EMAIL_1] again. [EMAIL_9] [CARD_1] [EMAIL_1')).toBe(
      'We wrote to jane@example.org and will call +44 20 7946 0958; jane@example.org again. [EMAIL_9] [CARD_1] [EMAIL_1',
    );
  });

  it('with nothing redacted the answer is returned as it is', () => {
    const r = createRedactor();
    expect(r.redact('hello')).toBe('hello');
    expect(r.restore('[EMAIL_1]')).toBe('[EMAIL_1]');
  });
});

describe('linear time on hostile text', () => {
  it.each([
    ['@'.repeat(200_000)],
    ['a'.repeat(200_000) + '@'],
    ['a.'.repeat(100_000) + '@x'],
    ['1 '.repeat(100_000)],
    ['1-'.repeat(100_000)],
    ['DE89 '.repeat(50_000)],
    ['+('.repeat(100_000)],
    ['x@y.'.repeat(50_000)],
  ])('%# (200 000 characters) is redacted in well under a second', (text) => {
    const started = performance.now();
    createRedactor().redact(text);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
