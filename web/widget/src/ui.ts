import type { Status } from './client.js';
import { PRECHAT_EMAIL_MAX, PRECHAT_NAME_MAX, prechatProblem, type ChatMessage } from './protocol.js';
import type { OutboxItem } from './store.js';
import { CSS as STYLES } from './styles.js';

export interface UiOptions {
  title: string;
  accent?: string;
  greeting?: string;
  onSend(text: string): void;
  onRetry(item: OutboxItem): void;
  /** The visitor's answer to the satisfaction survey. */
  onSurvey?(surveyId: string, rating: number, comment: string): void;
}

/**
 * DOM hooks for tests (all inside the open shadow root of `<mas-webchat>`): messages are
 * `.m[data-author]`, with `data-id` once the server id is known, `data-client-message-id` for the
 * visitor's own messages and `data-state` = sending | sent | failed on those. An agent reply still being
 * written is `.m[data-partial]` with `data-reply-id`; its final message takes its place.
 */

const LABEL: Record<string, string> = { customer: 'You', agent: 'Agent', operator: 'Operator', system: 'Notice' };
const ERROR_SHOWN_MS = 6000;
/**
 * The typing indicator stays until the reply (or a `typing: false`) arrives; this is only the safety net for
 * a stop that never comes (a lost connection, a crashed worker). Longer than a slow LLM answer with retries.
 */
export const TYPING_SAFETY_MS = 90_000;
const UNAVAILABLE = 'Chat is not available on this site.';

type Attrs = Record<string, string>;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...kids: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]!);
  e.append(...kids);
  return e;
}

const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8.4L4 21.5V18a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 6.5a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3z"/></svg>';

export class ChatUi {
  readonly host: HTMLElement;
  private readonly bubble: HTMLButtonElement;
  private readonly badge: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private readonly err: HTMLElement;
  private readonly log: HTMLElement;
  private readonly typing: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  /** Rendered messages by `id:<server id>` and `c:<clientMessageId>`. */
  private byKey = new Map<string, HTMLElement>();
  /** Agent replies being written, by reply id: their element and the text node that grows. */
  private partials = new Map<string, { el: HTMLElement; text: Text }>();
  private unread = 0;
  private errTimer: ReturnType<typeof setTimeout> | undefined;
  private typingTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly sendButton: HTMLButtonElement;
  isOpen = false;

  constructor(private readonly o: UiOptions) {
    this.host = document.createElement('mas-webchat');
    const root = this.host.attachShadow({ mode: 'open' });
    const sheet = typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype;
    if (sheet && 'adoptedStyleSheets' in root) {
      // Constructed sheets are not subject to a page's style-src CSP, unlike <style>.
      const s = new CSSStyleSheet();
      s.replaceSync(STYLES);
      root.adoptedStyleSheets = [s];
    } else {
      root.append(el('style', {}, STYLES));
    }

    this.badge = el('span', { class: 'badge', 'aria-hidden': 'true', hidden: '' });
    this.bubble = el('button', {
      type: 'button',
      class: 'bubble',
      'aria-label': 'Open chat',
      'aria-expanded': 'false',
      'aria-controls': 'mas-panel',
    });
    this.bubble.innerHTML = ICON;
    this.bubble.append(this.badge);

    const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Close chat' }, '\u00d7');
    this.status = el('div', { class: 'status', role: 'status', hidden: '' });
    this.err = el('div', { class: 'err', role: 'alert', hidden: '' });
    this.log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Messages', tabindex: '0' });
    this.typing = el('div', { class: 'typing', role: 'status', hidden: '' }, 'Agent is typing\u2026');
    this.input = el('textarea', { 'aria-label': 'Message', rows: '1', placeholder: 'Type a message\u2026' });
    const send = el('button', { type: 'submit', class: 'send' }, 'Send');
    this.sendButton = send;
    const form = el('form', { class: 'f' }, this.input, send);
    this.panel = el(
      'div',
      { class: 'panel', id: 'mas-panel', role: 'dialog', 'aria-label': o.title, hidden: '' },
      el('div', { class: 'head' }, el('h2', {}, o.title), close),
      this.status,
      this.log,
      this.typing,
      this.err,
      form,
    );
    const wrap = el('div', { class: 'w' }, this.bubble, this.panel);
    root.append(wrap);

    this.bubble.addEventListener('click', () => this.open());
    close.addEventListener('click', () => this.close(true));
    this.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        this.close(true);
      }
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => this.fit());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
      this.input.focus();
    });

    document.body.append(this.host);
    if (o.accent) this.setAccent(wrap, o.accent);
    this.reset([]);
  }

  private setAccent(wrap: HTMLElement, accent: string): void {
    if (!isColor(accent)) return;
    wrap.style.setProperty('--a', accent);
    // Pick readable text on the accent from its computed rgb() value.
    const rgb = getComputedStyle(this.bubble).backgroundColor.match(/[\d.]+/g);
    if (rgb && rgb.length >= 3) {
      const [r, g, b] = rgb.map(Number) as [number, number, number];
      const lum = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
      wrap.style.setProperty('--at', lum > 0.62 ? '#111' : '#fff');
    }
  }

  private fit(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight + 2, 120)}px`;
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = '';
    this.fit();
    this.o.onSend(text);
  }

  /** `focus: false` for the dashboard's preview: it reloads while someone types the greeting beside it. */
  open(focus = true): void {
    if (!this.isOpen) {
      this.isOpen = true;
      this.panel.hidden = false;
      this.bubble.hidden = true;
      this.bubble.setAttribute('aria-expanded', 'true');
      this.unread = 0;
      this.badge.hidden = true;
      this.toEnd();
    }
    if (focus) this.input.focus();
  }

  close(returnFocus = false): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.panel.hidden = true;
    this.bubble.hidden = false;
    this.bubble.setAttribute('aria-expanded', 'false');
    if (returnFocus) this.bubble.focus();
  }

  setStatus(s: Status): void {
    this.status.textContent = s === 'connecting' ? 'Connecting\u2026' : s === 'unavailable' ? UNAVAILABLE : 'Reconnecting\u2026';
    this.status.dataset.status = s;
    this.status.hidden = s === 'ready';
    if (s === 'unavailable') {
      // Final: nothing typed here could ever be delivered.
      this.input.disabled = true;
      this.sendButton.disabled = true;
      this.input.placeholder = UNAVAILABLE;
    }
  }

  /** Shown from the server's `typing: true` until the reply, a `typing: false`, or the safety timeout. */
  setTyping(on: boolean): void {
    clearTimeout(this.typingTimer);
    this.typing.hidden = !on;
    if (on) {
      this.typingTimer = setTimeout(() => {
        this.typing.hidden = true;
        this.dropPartials();
      }, TYPING_SAFETY_MS);
    } else {
      // The agent stopped without (or after) its reply: a partial still shown never completed.
      this.dropPartials();
    }
  }

  /**
   * A piece of an agent reply still being written: shown in place, growing, as plain text. Offset 0 starts it
   * over (a retry must not glue the old text to the new); a piece that does not continue it is skipped (the
   * final message brings the whole text); a reply already shown in full is left alone.
   */
  addDelta(id: string, offset: number, text: string): void {
    if (this.byKey.has(`id:${id}`) || text === '') return;
    const partial = this.partials.get(id);
    const stick = this.atBottom();
    if (offset === 0) {
      if (partial) {
        partial.text.data = text;
      } else {
        const node = document.createTextNode(text);
        const e = el('div', { class: 'm m-agent', 'data-author': 'agent', 'data-partial': '', 'data-reply-id': id }, el('span', { class: 'sr' }, `${LABEL.agent}: `), el('div', { class: 't' }, node));
        this.partials.set(id, { el: e, text: node });
        this.log.append(e);
      }
    } else if (partial && offset === partial.text.length) {
      partial.text.appendData(text);
    } else {
      return;
    }
    if (stick) this.toEnd();
  }

  private dropPartials(): void {
    for (const { el: e } of this.partials.values()) e.remove();
    this.partials.clear();
  }

  /**
   * The optional pre-chat form (`.pre`: name, email, Start chat, Skip), at the top of the list. Checked here like
   * the service checks it; a problem is shown under the fields (`.pre-err`) and nothing is sent.
   */
  showPrechat(on: { onSubmit(profile: { name?: string; email?: string }): void; onSkip(): void }): void {
    this.log.querySelector('.pre')?.remove();
    const name = el('input', { type: 'text', name: 'name', autocomplete: 'name', maxlength: String(PRECHAT_NAME_MAX), 'aria-label': 'Your name' });
    const email = el('input', { type: 'email', name: 'email', autocomplete: 'email', maxlength: String(PRECHAT_EMAIL_MAX), 'aria-label': 'Your email' });
    const problem = el('p', { class: 'pre-err', role: 'alert', hidden: '' });
    const skip = el('button', { type: 'button', class: 'pre-skip' }, 'Skip');
    const form = el(
      'form',
      { class: 'pre', 'aria-label': 'Before we start', novalidate: '' },
      el('p', { class: 'pre-q' }, 'Before we start: how can we reach you? (optional)'),
      el('label', {}, el('span', {}, 'Name'), name),
      el('label', {}, el('span', {}, 'Email'), email),
      problem,
      el('div', { class: 'pre-b' }, skip, el('button', { type: 'submit', class: 'send' }, 'Start chat')),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const answers = { name: name.value.replace(/\s+/g, ' ').trim(), email: email.value.trim() };
      const why = prechatProblem(answers.name, answers.email);
      problem.textContent = why ?? '';
      problem.hidden = why === null;
      if (why) return;
      form.remove();
      on.onSubmit({ ...(answers.name ? { name: answers.name } : {}), ...(answers.email ? { email: answers.email } : {}) });
      this.input.focus();
    });
    skip.addEventListener('click', () => {
      form.remove();
      on.onSkip();
      this.input.focus();
    });
    this.log.append(form);
  }

  /** Removes the pre-chat form if shown; true when it was. */
  dismissPrechat(): boolean {
    const form = this.log.querySelector('.pre');
    form?.remove();
    return form !== null;
  }

  /**
   * The satisfaction survey after the conversation closed, inline at the end of the list (`.csat[data-survey-id]`:
   * five rating buttons, an optional comment, Send); null removes it. Answered, it says thanks.
   */
  showSurvey(survey: { surveyId: string; question: string } | null): void {
    this.log.querySelector('.csat')?.remove();
    if (!survey) return;
    let rating = 0;
    const send = el('button', { type: 'button', class: 'send', disabled: '' }, 'Send rating');
    const buttons = [1, 2, 3, 4, 5].map((n) => {
      const b = el('button', { type: 'button', 'aria-label': `Rate ${n} out of 5`, 'aria-pressed': 'false', 'data-rating': String(n) }, String(n));
      b.addEventListener('click', () => {
        rating = n;
        for (const other of buttons) other.setAttribute('aria-pressed', String(other === b));
        send.disabled = false;
      });
      return b;
    });
    const comment = el('textarea', { 'aria-label': 'Comment (optional)', rows: '1', placeholder: 'A comment (optional)', maxlength: '1000' });
    const box = el('div', { class: 'csat', role: 'group', 'aria-label': 'Rate this conversation', 'data-survey-id': survey.surveyId },
      el('p', { class: 'csat-q' }, survey.question),
      el('div', { class: 'csat-r' }, ...buttons),
      comment,
      send,
    );
    send.addEventListener('click', () => {
      if (!rating) return;
      send.disabled = true;
      this.o.onSurvey?.(survey.surveyId, rating, comment.value);
    });
    this.log.append(box);
    this.toEnd();
  }

  /** The survey's answer was recorded: it gives way to a thank-you. */
  surveyRecorded(surveyId: string, rating: number): void {
    const box = this.log.querySelector<HTMLElement>(`.csat[data-survey-id="${CSS.escape(surveyId)}"]`);
    if (!box) return;
    box.replaceChildren(el('p', { class: 'csat-done', role: 'status' }, `Thanks for your rating (${rating}/5)!`));
    box.dataset.recorded = '';
  }

  /** The integration's greeting (from the server, or the page's data-greeting); redraws the list's first item. */
  setGreeting(greeting: string | undefined): void {
    const text = greeting?.trim() || undefined;
    if (text === this.o.greeting) return;
    this.o.greeting = text;
    this.log.querySelector('[data-greeting]')?.remove();
    if (text) this.log.prepend(this.greetingElement(text));
  }

  private greetingElement(text: string): HTMLElement {
    const g = this.render('agent', text);
    g.dataset.greeting = '';
    return g;
  }

  showError(text: string): void {
    this.err.textContent = text;
    this.err.hidden = false;
    clearTimeout(this.errTimer);
    this.errTimer = setTimeout(() => (this.err.hidden = true), ERROR_SHOWN_MS);
  }

  /** Replaces the list: greeting, then server history, then still-pending own messages. */
  reset(history: ChatMessage[], pending: OutboxItem[] = []): void {
    this.byKey.clear();
    this.partials.clear();
    this.log.replaceChildren();
    if (this.o.greeting) this.log.append(this.greetingElement(this.o.greeting));
    for (const m of history) this.add(m, false);
    for (const p of pending) this.addPending(p);
    this.toEnd();
  }

  /** A message from the server (history or live); ignored when its id is already shown. */
  add(m: ChatMessage, live = true): void {
    if (this.byKey.has(`id:${m.id}`)) return;
    const mine = m.clientMessageId !== undefined ? this.byKey.get(`c:${m.clientMessageId}`) : undefined;
    if (mine) {
      this.markSent(m.clientMessageId!, m.id);
      return;
    }
    const e = this.render(m.author, m.text, m.createdAt);
    e.dataset.id = m.id;
    this.byKey.set(`id:${m.id}`, e);
    if (m.clientMessageId !== undefined) {
      e.dataset.clientMessageId = m.clientMessageId;
      this.byKey.set(`c:${m.clientMessageId}`, e);
    }
    if (m.author === 'customer') e.dataset.state = 'sent';
    const stick = this.atBottom();
    const partial = this.partials.get(m.id);
    if (partial) {
      // The reply as stored replaces what was shown while it was written, where it stood.
      this.partials.delete(m.id);
      partial.el.replaceWith(e);
    } else {
      this.log.append(e);
    }
    if (live && m.author !== 'customer') {
      this.setTyping(false);
      if (!this.isOpen) {
        this.unread++;
        this.badge.textContent = String(this.unread);
        this.badge.hidden = false;
      }
    }
    if (stick || m.author === 'customer') this.toEnd();
  }

  /** The visitor's own message, shown at once in the "sending" state. */
  addPending(item: OutboxItem): void {
    // Writing again opens a new conversation session: an unanswered survey no longer waits.
    this.log.querySelector('.csat:not([data-recorded])')?.remove();
    let e = this.byKey.get(`c:${item.clientMessageId}`);
    if (e) {
      // a retry of a failed message: back to sending
      e.dataset.state = 'sending';
      this.meta(e, 'Sending\u2026');
      return;
    }
    e = this.render('customer', item.text, item.createdAt);
    e.dataset.clientMessageId = item.clientMessageId;
    e.dataset.state = 'sending';
    this.meta(e, 'Sending\u2026');
    this.byKey.set(`c:${item.clientMessageId}`, e);
    this.log.append(e);
    this.toEnd();
  }

  markSent(clientMessageId: string, messageId: string): void {
    const e = this.byKey.get(`c:${clientMessageId}`);
    if (!e) return;
    e.dataset.state = 'sent';
    e.dataset.id = messageId;
    this.byKey.set(`id:${messageId}`, e);
    this.meta(e, '');
  }

  markFailed(item: OutboxItem, reason: string): void {
    const e = this.byKey.get(`c:${item.clientMessageId}`);
    if (!e) return;
    e.dataset.state = 'failed';
    const retry = el('button', { type: 'button', class: 'retry' }, 'Retry');
    retry.addEventListener('click', () => {
      this.o.onRetry(item);
      this.addPending(item);
    });
    this.meta(e, `Not delivered${reason ? ` (${reason.replace(/\.$/, '')})` : ''}. `, retry);
  }

  private meta(e: HTMLElement, text: string, ...extra: Node[]): void {
    e.querySelector('.meta')?.remove();
    if (text) e.append(el('div', { class: 'meta' }, text, ...extra));
  }

  private render(author: string, text: string, createdAt?: string): HTMLElement {
    const e = el(
      'div',
      { class: `m m-${author}`, 'data-author': author },
      el('span', { class: 'sr' }, `${LABEL[author] ?? 'Agent'}: `),
      el('div', { class: 't' }, text),
    );
    if (createdAt) {
      const d = new Date(createdAt);
      if (!isNaN(d.getTime())) e.title = d.toLocaleString();
    }
    return e;
  }

  /** New messages keep the list scrolled to the end unless the visitor scrolled up to read. */
  private atBottom(): boolean {
    const l = this.log;
    return l.scrollHeight - l.scrollTop - l.clientHeight < 40;
  }

  private toEnd(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }
}

function isColor(v: string): boolean {
  try {
    return CSS.supports('color', v);
  } catch {
    return false;
  }
}
