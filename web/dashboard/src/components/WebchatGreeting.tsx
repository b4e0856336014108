import { useEffect, useState } from 'react';
import { API_BASE } from '../api/client.js';
import type { ServerLimits } from '../api/serverTypes.js';
import { TextAreaField } from './ui.js';

/** The server's limit (integration setting `greeting`). */
export const GREETING_MAX_LENGTH = 500 satisfies ServerLimits['webchatGreeting'];

/** Where the widget script is served: the API's origin. */
function widgetScriptUrl(): string {
  let origin = window.location.origin;
  if (API_BASE) {
    try {
      origin = new URL(API_BASE, window.location.href).origin;
    } catch {
      // the dashboard's own origin
    }
  }
  return `${origin}/widget.js`;
}

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page the preview frame shows: the real widget.js in preview mode (opened, never connects), with the
 * greeting as typed. Sandboxed without same-origin: the widget cannot reach the dashboard or its session.
 */
export function previewDocument(greeting: string, integrationId: number | null): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;font:13px system-ui;color:#6b7280;background:#f3f4f6}p{padding:12px}</style></head>
<body><p>Your website</p><script src="${escapeAttr(widgetScriptUrl())}" data-integration-id="${integrationId ?? 0}" data-preview="true" data-greeting="${escapeAttr(greeting)}"></script></body></html>`;
}

/** The greeting field of a web chat integration, with a live preview of the widget showing it. */
export function WebchatGreeting({ value, onChange, integrationId }: { value: string; onChange: (v: string) => void; integrationId: number | null }) {
  // The frame reloads a moment after typing stops, not on every key.
  const [shown, setShown] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setShown(value), 300);
    return () => clearTimeout(timer);
  }, [value]);
  const tooLong = value.trim().length > GREETING_MAX_LENGTH;
  return (
    <div className="webchat-greeting">
      <TextAreaField
        label="Greeting"
        rows={3}
        value={value}
        onValueChange={onChange}
        maxLength={GREETING_MAX_LENGTH + 50}
        placeholder="Hi! How can we help you today?"
        hint={`The first message a visitor sees when they open the chat (at most ${GREETING_MAX_LENGTH} characters; leave empty for none). ${value.trim().length}/${GREETING_MAX_LENGTH}`}
        error={tooLong ? `At most ${GREETING_MAX_LENGTH} characters` : undefined}
        data-testid="webchat-greeting"
      />
      <div className="webchat-preview">
        <span className="copy-label">Preview</span>
        <iframe
          title="Web chat widget preview"
          data-testid="webchat-preview"
          sandbox="allow-scripts"
          srcDoc={previewDocument(shown.trim(), integrationId)}
          style={{ width: '100%', maxWidth: 420, height: 640, border: '1px solid #e5e7eb', borderRadius: 8, background: '#f3f4f6' }}
        />
      </div>
    </div>
  );
}
