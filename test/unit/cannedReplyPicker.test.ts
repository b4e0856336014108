import { describe, expect, it } from 'vitest';
import { filterCannedReplies, slashTokenAt } from '../../web/dashboard/src/components/CannedReplyPicker.js';

const reply = (shortcut: string, title: string) => ({ id: shortcut, shortcut, title, text: `${title}.`, createdAt: '', updatedAt: '' });

describe('canned-reply picker', () => {
  it('opens on a "/word" at the caret, at the start or after whitespace only', () => {
    expect(slashTokenAt('/gre', 4)).toEqual({ start: 0, query: 'gre' });
    expect(slashTokenAt('Hello /Ho', 9)).toEqual({ start: 6, query: 'ho' });
    expect(slashTokenAt('/', 1)).toEqual({ start: 0, query: '' });
    expect(slashTokenAt('and/or', 6)).toBeNull();
    expect(slashTokenAt('see https://x.io/a', 18)).toBeNull();
    expect(slashTokenAt('/gre and more', 13)).toBeNull();
  });

  it('lists shortcut-prefix matches first, then shortcut or title containing the query', () => {
    const all = [reply('hours', 'Opening hours'), reply('greeting', 'Greeting'), reply('shipping', 'Shipping times'), reply('thanks', 'Thanks for your order')];
    expect(filterCannedReplies(all, 'h').map((r) => r.shortcut)).toEqual(['hours', 'shipping', 'thanks']);
    expect(filterCannedReplies(all, 'ORDER').map((r) => r.shortcut)).toEqual(['thanks']);
    expect(filterCannedReplies(all, '')).toHaveLength(4);
  });
});
