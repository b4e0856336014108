import { getCredits } from '../api/endpoints.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { Button, EmptyState, ErrorState, PageHeader, Skeleton, Time } from '../components/ui.js';
import { formatMicros, humanize } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { t } from '../lib/messages.js';
import { useAsync } from '../lib/useAsync.js';

/** "$5.00" from the API's display string (falls back to the micro-dollar amount). */
function formatBalance(balance: string | undefined, micros: number | string | undefined, currency: string | undefined): string {
  const symbol = !currency || currency === 'USD' ? '$' : `${currency} `;
  if (balance !== undefined && balance !== null && balance !== '') {
    const text = String(balance);
    return text.startsWith('-') ? `-${symbol}${text.slice(1)}` : `${symbol}${text}`;
  }
  return formatMicros(micros);
}

export function CreditsPage() {
  const credits = useAsync((signal) => getCredits({ signal }), []);
  const data = credits.data;
  const ledger = [...(data?.ledger ?? [])].sort((a, b) => (Date.parse(b.at) || 0) - (Date.parse(a.at) || 0));
  const low = data ? Number(data.balanceMicros) <= 0 : false;

  return (
    <>
      <PageHeader
        title="Credits"
        description="AI replies from an OpenAI-compatible provider are charged from this balance at the model’s price. The builtin provider is free."
        actions={<Button onClick={credits.reload}>Refresh</Button>}
      />
      {credits.loading && !data ? (
        <div className="card">
          <Skeleton rows={4} />
        </div>
      ) : credits.error && !data ? (
        <ErrorState error={credits.error} onRetry={credits.reload} title="Could not load the credits" />
      ) : data ? (
        <>
          <section className={`card balance-card${low ? ' balance-low' : ''}`} aria-labelledby="balance-title">
            <h2 className="balance-label" id="balance-title">
              Balance
            </h2>
            <p className="balance-value" data-testid="credit-balance">
              {formatBalance(data.balance, data.balanceMicros, data.currency)}
            </p>
            {low && <p className="notice notice-error">Out of credits: AI replies are paused until credits are added.</p>}
          </section>
          <CardSection title="Ledger">
            {ledger.length === 0 ? (
              <EmptyState title="No credit movements yet" />
            ) : (
              <DataTable cards columns={[t.credits.time, { label: t.credits.amount, className: 'num' }, t.credits.reason, t.credits.conversation]}>
                {ledger.map((entry, index) => {
                  const negative = String(entry.deltaMicros).startsWith('-');
                  return (
                    <tr key={`${entry.at}-${index}`} data-testid="ledger-row">
                      <td className="nowrap" data-label={t.credits.time}>
                        <Time iso={entry.at} />
                      </td>
                      <td data-label={t.credits.amount} className={`num nowrap ${negative ? 'amount-negative' : 'amount-positive'}`}>{formatMicros(entry.deltaMicros, { sign: true })}</td>
                      <td className="wrap" data-label={t.credits.reason}>
                        {humanize(entry.reason)}
                      </td>
                      <td data-label={t.credits.conversation}>
                        {entry.conversationId ? (
                          <Link to={`/conversations/${encodeURIComponent(entry.conversationId)}`}>{t.credits.openConversation}</Link>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </DataTable>
            )}
          </CardSection>
        </>
      ) : null}
    </>
  );
}
