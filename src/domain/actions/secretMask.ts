/** What stands where an action's header value was. */
export const HIDDEN = '[hidden]';

/** Values shorter than this are left as they are: blanking "1" or "yes" would garble every answer and hide nothing. */
const MIN_MASKED = 4;

/**
 * The text with every header value in it replaced by HIDDEN: as sent, and as it reads inside a JSON string (a
 * value with a quote or a backslash is escaped there). An endpoint that echoes its key back (as a careless API
 * might) must not carry it into a test's answer, an event, the action log, the model's prompt or a reply.
 * The longest values go first, so one that holds another is hidden whole; a value cut off at the end (a
 * response capped in its middle) is hidden too.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const forms = [...new Set(secrets.filter((s) => s.length >= MIN_MASKED).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))].sort((a, b) => b.length - a.length);
  const whole = forms.reduce((out, form) => out.split(form).join(HIDDEN), text);
  return forms.reduce(withoutCutOffStart, whole);
}

/** The text without a start of `form` (MIN_MASKED characters or more) it ends with. */
function withoutCutOffStart(text: string, form: string): string {
  const tail = text.slice(-(form.length - 1));
  const start = form.slice(0, MIN_MASKED);
  for (let i = tail.indexOf(start); i !== -1; i = tail.indexOf(start, i + 1)) {
    if (form.startsWith(tail.slice(i))) return text.slice(0, text.length - tail.length + i) + HIDDEN;
  }
  return text;
}
