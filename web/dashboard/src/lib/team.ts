// The company's teammates as the inbox names them: assignees in rows, the detail, the event history and the picker.
import { useCallback, useEffect, useState } from 'react';
import { listTeammates } from '../api/endpoints.js';
import type { Teammate } from '../api/types.js';

/** How a teammate is named: the name they gave, else their email (a company owner may have no name). */
export const teammateName = (teammate: Pick<Teammate, 'name' | 'email'>): string => teammate.name?.trim() || teammate.email;

// A team is read a page at a time; past this many pages the picker's search still finds the first 1,000.
const MAX_PAGES = 20;
// Shared by every row and dialog, and read again when older than this (someone joined, a name changed).
const FRESH_MS = 60_000;
let cache: { at: number; team: Promise<Teammate[]> } | null = null;
// Ids the team was read again for, so an unknown one (a removed teammate) costs one read, not one per render.
const readAgainFor = new Set<string>();
// Every mounted directory (the header, the rows, the history, the picker): a read for one of them serves all, so
// the one that did not ask for it (its id was already asked about) still learns a new colleague's name.
const listeners = new Set<(teammates: Teammate[]) => void>();

async function loadTeam(): Promise<Teammate[]> {
  const team: Teammate[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await listTeammates(cursor);
    team.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return team;
}

function team(force = false): Promise<Teammate[]> {
  if (force || !cache || Date.now() - cache.at > FRESH_MS) {
    const loading: Promise<Teammate[]> = loadTeam().then(
      (teammates) => {
        // An older read finishing after a newer one must not bring back the older list.
        if (cache?.team === loading) for (const listener of listeners) listener(teammates);
        return teammates;
      },
      (error: unknown) => {
        if (cache?.team === loading) cache = null;
        throw error;
      },
    );
    cache = { at: Date.now(), team: loading };
  }
  return cache.team;
}

/** Teammates whose name or email contains every word of `query`, in the order given. */
export function filterTeammates(teammates: Teammate[], query: string): Teammate[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return teammates.filter((t) => {
    const hay = `${t.name ?? ''} ${t.email}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export interface TeamDirectory {
  teammates: Teammate[] | null;
  error: unknown;
  /** The teammate's name; undefined while the team loads, or for someone no longer on it. */
  nameOf: (userId: string | null | undefined) => string | undefined;
  /** Reads the team again (availability and load change while the page is open). */
  refresh: () => void;
}

/**
 * The team, loaded once and shared. An id it does not know (a teammate who joined since) reads the team again,
 * once per id, and every directory on the page gets the new list, so a new colleague's name appears everywhere
 * without a page reload.
 */
export function useTeam(): TeamDirectory {
  const [teammates, setTeammates] = useState<Teammate[] | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const load = useCallback((force: boolean) => {
    team(force).then(setTeammates, setError);
  }, []);
  useEffect(() => {
    listeners.add(setTeammates);
    load(false);
    return () => {
      listeners.delete(setTeammates);
    };
  }, [load]);

  const nameOf = useCallback(
    (userId: string | null | undefined) => {
      if (!userId || !teammates) return undefined;
      const found = teammates.find((t) => t.id === userId);
      if (!found && !readAgainFor.has(userId)) {
        readAgainFor.add(userId);
        // After this render: reading again ends in a state change.
        queueMicrotask(() => load(true));
      }
      return found ? teammateName(found) : undefined;
    },
    [teammates, load],
  );
  const refresh = useCallback(() => load(true), [load]);
  return { teammates, error, nameOf, refresh };
}
