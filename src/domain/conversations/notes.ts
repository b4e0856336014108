import { NOTE_LIMITS } from './events.js';

/** A teammate as an @mention can name them: their display name, or their email's local part. */
export interface MentionableTeammate {
  userId: string;
  name: string | null;
  email: string;
}

const WORD = /[\p{L}\p{N}_.-]/u;

/**
 * The teammates an internal note's `@name`s name, in order of first mention, at most NOTE_LIMITS.mentions.
 * After each `@`, the longest handle that follows it wins (a full name with spaces, "@Ana Lima", before a first
 * name "@Ana"), and only when the handle ends there (not "@Anabel"). Plain string comparison, no pattern built
 * from a name: a teammate's name is text someone chose. Costs at most (text length × teammates), both bounded.
 */
export function resolveMentions(text: string, teammates: readonly MentionableTeammate[]): string[] {
  const lower = text.toLowerCase();
  const handles = teammates.flatMap((t) => {
    const names = [t.name?.trim(), t.name?.trim().split(/\s+/)[0], t.email.split('@')[0]].filter((h): h is string => !!h);
    return [...new Set(names.map((h) => h.toLowerCase()))].map((handle) => ({ handle, userId: t.userId }));
  });
  handles.sort((a, b) => b.handle.length - a.handle.length);
  const found: string[] = [];
  for (let at = lower.indexOf('@'); at !== -1 && found.length < NOTE_LIMITS.mentions; at = lower.indexOf('@', at + 1)) {
    // An email address in the note ("write to ana@example.com") is no mention.
    if (at > 0 && WORD.test(lower[at - 1]!)) continue;
    const match = handles.find(({ handle }) => lower.startsWith(handle, at + 1) && !WORD.test(lower[at + 1 + handle.length] ?? ' '));
    if (match && !found.includes(match.userId)) found.push(match.userId);
  }
  return found;
}
