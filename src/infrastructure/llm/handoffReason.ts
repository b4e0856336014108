import { MAX_HANDOFF_REASON } from '../../ports/llm.js';

/** A model's handoff reason made safe to store: a string, no control characters, one line, bounded; undefined when empty. */
export function cleanHandoffReason(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const text = value.slice(0, MAX_HANDOFF_REASON * 4).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length === 0 ? undefined : text.slice(0, MAX_HANDOFF_REASON);
}
