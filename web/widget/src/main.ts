import { ChatClient } from './client.js';
import type { VisitorIdentity } from './protocol.js';
import { Store, storageIdentity } from './store.js';
import { ChatUi } from './ui.js';

/**
 * Entry point of widget.js, embedded as
 *   <script src="{base}/widget.js" data-integration-id="7" async></script>
 * Optional attributes: data-title, data-accent (any CSS colour), data-greeting (used when the integration
 * has no greeting of its own), data-visitor-name (a signed-in shopper's name, shown to the agents),
 * data-preview (the dashboard's preview: opened, never connects), and for identity verification data-user-id,
 * data-user-email and data-user-hash (the HMAC the site's server computed; docs/api/webchat.md).
 * Exposes window.MessagingAgentWidget = { open(), close(), state() }.
 */

export interface WidgetApi {
  open(): void;
  close(): void;
  state(): { connected: boolean; conversationId: string | number | null; queued: number };
}

declare global {
  interface Window {
    MessagingAgentWidget?: WidgetApi;
  }
}

function findScript(): HTMLScriptElement | null {
  const cur = document.currentScript;
  if (cur instanceof HTMLScriptElement && cur.dataset.integrationId) return cur;
  return document.querySelector<HTMLScriptElement>('script[data-integration-id][src*="widget.js"]');
}

/** The signed-in visitor the page vouches for; none without both a user id and its signature. */
function visitorIdentity(d: DOMStringMap): VisitorIdentity | undefined {
  const userId = d.userId?.trim();
  const userHash = d.userHash?.trim();
  if (!userId || !userHash) return undefined;
  const email = d.userEmail?.trim();
  return { userId, userHash, ...(email ? { email } : {}) };
}

function init(): void {
  if (window.MessagingAgentWidget) return; // embedded twice
  const script = findScript();
  const integrationId = script?.dataset.integrationId?.trim();
  if (!script || !integrationId) {
    console.warn('[widget.js] no <script data-integration-id> found');
    return;
  }
  // The service base is where widget.js came from (a path prefix behind a proxy is kept).
  const src = new URL(script.src, location.href);
  const base = new URL('.', src);
  const ws = new URL(`api/webchat/${encodeURIComponent(integrationId)}`, base);
  ws.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  const d = script.dataset;

  let ui: ChatUi | undefined;
  let client: ChatClient | undefined;
  let openWhenMounted = false;
  window.MessagingAgentWidget = {
    open: () => (ui ? ui.open() : (openWhenMounted = true)),
    close: () => (ui ? ui.close() : (openWhenMounted = false)),
    state: () => ({
      connected: client?.connected ?? false,
      conversationId: client?.conversationId ?? null,
      queued: client?.queued ?? 0,
    }),
  };

  const pageGreeting = d.greeting?.trim() || undefined;
  const mountPreview = () => {
    ui = new ChatUi({
      title: d.title?.trim() || 'Chat with us',
      accent: d.accent?.trim(),
      greeting: pageGreeting,
      onSend: () => {},
      onRetry: () => {},
    });
    ui.setStatus('ready');
    // Never takes the keyboard: the page showing the preview is where someone is typing.
    ui.open(false);
  };
  const mount = () => {
    const identity = visitorIdentity(d);
    const slot = `mas-webchat:${src.origin}:${integrationId}`;
    // A token per identity the page vouches for: see store.ts. Only an anonymous page takes over the old shared slot.
    const store = new Store(`${slot}:${storageIdentity(identity?.userId)}`, identity ? undefined : slot);
    const view = new ChatUi({
      title: d.title?.trim() || 'Chat with us',
      accent: d.accent?.trim(),
      greeting: store.read().greeting ?? pageGreeting,
      onSend: (text) => {
        // Writing without the form is skipping it.
        if (view.dismissPrechat() && store.read().prechat === undefined) store.setPrechat('skipped');
        view.addPending(c.send(text));
      },
      onRetry: (item) => c.retry(item),
      onSurvey: (surveyId, rating, comment) => c.answerSurvey(surveyId, rating, comment),
    });
    const c = new ChatClient(ws.href, store, {
      status: (s) => view.setStatus(s),
      ready: (history, pending, greeting, prechatForm) => {
        // The integration's own greeting wins over the page's attribute.
        store.setGreeting(greeting);
        view.setGreeting(greeting ?? pageGreeting);
        view.reset(history, pending);
        // Asked once, of a visitor who has not written yet; optional: Skip, or just typing a message, goes past it.
        if (prechatForm && store.read().prechat === undefined && history.length === 0 && pending.length === 0) {
          view.showPrechat({
            onSubmit: (profile) => c.saveProfile(profile),
            onSkip: () => store.setPrechat('skipped'),
          });
        }
      },
      message: (m) => view.add(m),
      ack: (cid, mid) => view.markSent(cid, mid),
      typing: (on) => view.setTyping(on),
      delta: (id, offset, text) => view.addDelta(id, offset, text),
      survey: (survey) => view.showSurvey(survey),
      surveyRecorded: (surveyId, rating) => view.surveyRecorded(surveyId, rating),
      error: (code, message, failed) => {
        if (failed) view.markFailed(failed, message);
        view.showError(message || `Something went wrong (${code})`);
      },
    }, d.visitorName?.trim().slice(0, 80) || undefined, identity);
    // Own messages typed before a reload and not yet acknowledged show up as pending at once.
    for (const item of store.outbox()) view.addPending(item);
    ui = view;
    client = c;
    c.start();
    if (openWhenMounted) view.open();
  };
  const start = d.preview !== undefined && d.preview !== 'false' ? mountPreview : mount;
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
}

init();
