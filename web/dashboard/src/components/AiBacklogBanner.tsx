import { aiBacklogText, useAiBacklog } from '../lib/aiBacklog.js';

/**
 * "AI replies are delayed: 1,234 conversations waiting, oldest 3 min" while the company's oldest waiting customer
 * has waited past the server's threshold. The status region stays in the page (empty otherwise), so screen readers
 * announce the sentence when it appears.
 */
export function AiBacklogBanner() {
  const { backlog, at } = useAiBacklog();
  const text = aiBacklogText(backlog, at);
  return (
    <div role="status" className="ai-backlog" data-testid="ai-backlog">
      {text && <p className="notice notice-warning">{text}</p>}
    </div>
  );
}
