import { useEffect, useState } from 'react';
import { MAX_SEARCH_LENGTH } from '../api/search.js';
import { Link, navigate, useRoute } from '../lib/router.js';
import { Icon } from './icons.js';
import './search.css';

/** A search form: submitting opens the search page for the words typed. */
export function SearchForm({ className, autoFocus }: { className: string; autoFocus?: boolean }) {
  const route = useRoute();
  const current = route.segments[0] === 'search' ? (route.query.get('q') ?? '') : '';
  const [text, setText] = useState(current);
  useEffect(() => setText(current), [current]);

  return (
    <form
      role="search"
      className={className}
      onSubmit={(event) => {
        event.preventDefault();
        const q = text.trim();
        if (q) navigate(`/search?q=${encodeURIComponent(q)}`);
      }}
    >
      <Icon name="search" size={16} />
      <input
        type="search"
        className="input"
        aria-label="Search messages and customers"
        placeholder="Search messages and customers"
        maxLength={MAX_SEARCH_LENGTH}
        autoFocus={autoFocus}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  );
}

/** The top bar's search: a box on wide screens, a button to the search page on phones. */
export function HeaderSearch() {
  return (
    <>
      <SearchForm className="search-form header-search" />
      <Link to="/search" className="header-search-link" aria-label="Search">
        <Icon name="search" size={20} />
      </Link>
    </>
  );
}
