import { useCallback, useEffect, useRef, useState, type DependencyList, type Dispatch, type SetStateAction } from 'react';
import type { Page } from '../api/types.js';

export interface PagedState<T> {
  items: T[] | undefined;
  nextCursor: string | null;
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  loadMoreError: unknown;
  loadMore: () => void;
  reload: () => void;
  setItems: Dispatch<SetStateAction<T[] | undefined>>;
}

/** A cursor-paginated list: first page on mount / when deps change, then "Load more". */
export function usePaged<T>(fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<Page<T>>, deps: DependencyList): PagedState<T> {
  const [items, setItems] = useState<T[] | undefined>(undefined);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [loadMoreError, setLoadMoreError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const generation = useRef(0);

  useEffect(() => {
    const gen = ++generation.current;
    const controller = new AbortController();
    setLoading(true);
    setLoadingMore(false);
    setError(undefined);
    setLoadMoreError(undefined);
    fetchRef.current(null, controller.signal).then(
      (page) => {
        if (gen !== generation.current) return;
        setItems(page.items);
        setNextCursor(page.nextCursor);
        setLoading(false);
      },
      (err: unknown) => {
        if (gen !== generation.current) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);

  const loadMore = useCallback(() => {
    if (!nextCursor || loadingMore) return;
    const gen = generation.current;
    setLoadingMore(true);
    setLoadMoreError(undefined);
    fetchRef.current(nextCursor, new AbortController().signal).then(
      (page) => {
        if (gen !== generation.current) return;
        setItems((list) => {
          const seen = new Set((list ?? []).map((item) => (item as { id?: unknown }).id));
          const fresh = page.items.filter((item) => {
            const id = (item as { id?: unknown }).id;
            return id === undefined || !seen.has(id);
          });
          return [...(list ?? []), ...fresh];
        });
        setNextCursor(page.nextCursor);
        setLoadingMore(false);
      },
      (err: unknown) => {
        if (gen !== generation.current) return;
        setLoadMoreError(err);
        setLoadingMore(false);
      },
    );
  }, [nextCursor, loadingMore]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { items, nextCursor, loading, loadingMore, error, loadMoreError, loadMore, reload, setItems };
}
