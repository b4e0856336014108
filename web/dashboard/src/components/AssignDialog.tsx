import { useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react';
import type { Teammate } from '../api/types.js';
import { useAuth } from '../auth.js';
import { filterTeammates, teammateName, useTeam } from '../lib/team.js';
import { Modal } from './ui.js';
import './inbox.css';

/**
 * The searchable teammate picker: type part of a name or email, ArrowUp/ArrowDown to choose, Enter (or a click)
 * to assign. `current`: the assignee now, marked in the list.
 */
export function AssignDialog({
  open,
  title,
  current,
  busy,
  onPick,
  onClose,
}: {
  open: boolean;
  title: string;
  current?: string | null;
  busy?: boolean;
  onPick: (teammate: Teammate) => void;
  onClose: () => void;
}) {
  const me = useAuth().me?.user.id;
  const { teammates, error, refresh } = useTeam();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const matches = useMemo(() => filterTeammates(teammates ?? [], query), [teammates, query]);
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    if (!open) return;
    setQuery('');
    // Who is online and how full each is changes all day: read it when the picker opens.
    refresh();
  }, [open]);

  const pick = (teammate: Teammate | undefined) => {
    if (teammate && !busy) onPick(teammate);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (matches.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + matches.length) % matches.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      pick(matches[Math.min(active, matches.length - 1)]);
    }
  };
  const optionId = (i: number) => `${listId}-option-${i}`;

  return (
    <Modal open={open} onClose={onClose} title={title} size="sm">
      <div className="assign-picker" data-testid="assign-picker">
        <input
          className="input"
          type="search"
          autoFocus
          aria-label="Search teammates"
          placeholder="Search by name or email"
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          {...(matches.length > 0 ? { 'aria-activedescendant': optionId(Math.min(active, matches.length - 1)) } : {})}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={onKeyDown}
          data-testid="assign-search"
        />
        <ul className="assign-options" id={listId} role="listbox" aria-label="Teammates" aria-busy={teammates === null || busy}>
          {error !== undefined && teammates === null ? (
            <li className="assign-empty">Could not load the team.</li>
          ) : teammates === null ? (
            <li className="assign-empty">Loading the team…</li>
          ) : matches.length === 0 ? (
            <li className="assign-empty">No teammate matches “{query}”.</li>
          ) : (
            matches.map((teammate, i) => (
              <li
                key={teammate.id}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                aria-disabled={busy || undefined}
                className="assign-option"
                data-testid="assign-option"
                onClick={() => pick(teammate)}
                onMouseEnter={() => setActive(i)}
              >
                <span className="assign-name">
                  {teammateName(teammate)}
                  {teammate.id === me && <span className="muted"> (you)</span>}
                </span>
                <span className="assign-meta">
                  <span className={`assign-availability is-${teammate.availability ?? 'online'}`} data-testid="assign-availability">
                    {teammate.availability === 'away' ? 'Away' : 'Online'}
                    {teammate.openAssigned !== undefined ? ` · ${teammate.openAssigned} open` : ''}
                  </span>
                  {' · '}
                  {teammate.name ? `${teammate.email} · ` : ''}
                  {teammate.role}
                  {teammate.id === current ? ' · has it now' : ''}
                </span>
              </li>
            ))
          )}
        </ul>
      </div>
    </Modal>
  );
}
