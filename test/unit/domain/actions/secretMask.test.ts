import { describe, expect, it } from 'vitest';
import { HIDDEN, maskSecrets } from '../../../../src/domain/actions/secretMask.js';

describe('masking header values in an endpoint’s answer', () => {
  it('hides every occurrence of each value, longest first', () => {
    expect(maskSecrets('{"key":"sk-123456","again":"sk-123456"}', ['sk-123456'])).toBe(`{"key":"${HIDDEN}","again":"${HIDDEN}"}`);
    expect(maskSecrets('token abcd-efgh and abcd', ['abcd', 'abcd-efgh'])).toBe(`token ${HIDDEN} and ${HIDDEN}`);
  });

  it('hides a value as a JSON string escapes it', () => {
    expect(maskSecrets(JSON.stringify({ echo: 'pa"ss\\word' }), ['pa"ss\\word'])).toBe(`{"echo":"${HIDDEN}"}`);
  });

  it('hides the start of a value the text is cut off in', () => {
    expect(maskSecrets('{"echo":"shop-key-12', ['shop-key-123456'])).toBe(`{"echo":"${HIDDEN}`);
    expect(maskSecrets('{"status":"shipped"}', ['shop-key-123456'])).toBe('{"status":"shipped"}');
  });

  it('leaves values under 4 characters, and text without any value, as they are', () => {
    expect(maskSecrets('yes 123', ['yes', '123'])).toBe('yes 123');
    expect(maskSecrets('nothing here', ['sk-123456'])).toBe('nothing here');
    expect(maskSecrets('nothing here', [])).toBe('nothing here');
  });
});
