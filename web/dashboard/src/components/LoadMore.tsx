import type { ReactNode } from 'react';
import { Button, InlineError } from './ui.js';

/** What a cursor-paged list (`usePaged`) offers for its next page. */
interface MorePages {
  nextCursor: string | null;
  loadMore: () => void;
  loadingMore: boolean;
  loadMoreError?: unknown;
}

/** "Load more" while the list has another page; busy while it loads. */
export function LoadMoreButton({ list, size, children = 'Load more' }: { list: MorePages; size?: 'sm' | 'md'; children?: ReactNode }) {
  if (!list.nextCursor) return null;
  return (
    <Button size={size} onClick={list.loadMore} busy={list.loadingMore}>
      {children}
    </Button>
  );
}

/** The foot of a paged list: its "Load more" button and, when that failed, why. */
export function LoadMore({ list, children }: { list: MorePages; children?: ReactNode }) {
  return (
    <>
      {list.nextCursor && (
        <div className="list-foot">
          <LoadMoreButton list={list}>{children}</LoadMoreButton>
        </div>
      )}
      <InlineError error={list.loadMoreError} />
    </>
  );
}
