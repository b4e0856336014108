import { searchMessages, type SearchResult } from '../api/search.js';
import { SearchForm } from '../components/HeaderSearch.js';
import { Highlighted } from '../components/Highlighted.js';
import { LoadMore } from '../components/LoadMore.js';
import { EmptyState, ErrorState, PageHeader, Skeleton } from '../components/ui.js';
import { formatDateTimeLong, formatRelative } from '../lib/format.js';
import { Link, useRoute } from '../lib/router.js';
import { usePaged } from '../lib/usePaged.js';

const AUTHOR_LABEL: Record<NonNullable<SearchResult['message']>['author'], string> = {
  customer: 'Customer',
  agent: 'AI agent',
  operator: 'Team',
};

/** `#/search?q=…`: messages and customer names of the company holding the words typed in the top bar. */
export function SearchPage() {
  const q = (useRoute().query.get('q') ?? '').trim();
  return (
    <>
      <PageHeader title="Search" description="Customer messages, AI and team replies, and customer names — newest first." />
      {/* On phones the top bar has no room for the box: it is here. */}
      <SearchForm className="search-form page-search" autoFocus={!q} />
      {q ? <Results key={q} q={q} /> : <EmptyState title="Type words in the search box above">Every word must appear; a word also finds longer words it begins.</EmptyState>}
    </>
  );
}

function Results({ q }: { q: string }) {
  const list = usePaged<SearchResult>((cursor, signal) => searchMessages(q, cursor, { signal }), [q]);
  if (list.loading && !list.items) return <Skeleton rows={5} label="Searching…" />;
  if (list.error && !list.items) return <ErrorState error={list.error} onRetry={list.reload} title="Could not search" />;
  if (!list.items || list.items.length === 0) {
    return <EmptyState title={`Nothing found for “${q}”`}>Try fewer or shorter words.</EmptyState>;
  }
  return (
    <section className="card" aria-label={`Results for ${q}`}>
      <ul className="search-results" aria-busy={list.loading}>
        {list.items.map((hit) => (
          <li key={`${hit.conversationId}:${hit.message?.id ?? 'customer'}`}>
            <Link to={`/conversations/${encodeURIComponent(hit.conversationId)}`} className="search-hit" data-testid="search-hit">
              <span className="search-hit-head">
                <span className="search-hit-customer">{hit.customerName ?? 'Customer'}</span>
                <span className="muted">{hit.kind === 'customer' ? 'Customer name' : AUTHOR_LABEL[hit.message!.author]}</span>
                {hit.message && (
                  <time className="muted search-hit-time" dateTime={hit.message.createdAt} title={formatDateTimeLong(hit.message.createdAt)}>
                    {formatRelative(hit.message.createdAt)}
                  </time>
                )}
              </span>
              <span className="search-hit-text">
                {hit.snippet.truncatedStart && '… '}
                <Highlighted text={hit.snippet.text} ranges={hit.snippet.highlights} />
                {hit.snippet.truncatedEnd && ' …'}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      <LoadMore list={list}>More results</LoadMore>
    </section>
  );
}
