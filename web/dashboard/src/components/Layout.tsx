import { useEffect, useRef, useState, type ReactNode } from 'react';
import { logout } from '../api/client.js';
import { useAuth } from '../auth.js';
import { Link, navigate, type Route } from '../lib/router.js';
import { AiBacklogBanner } from './AiBacklogBanner.js';
import { HeaderSearch } from './HeaderSearch.js';
import { NotificationBell } from './NotificationBell.js';
import { Icon, type IconName } from './icons.js';
import { Button } from './ui.js';

/** `managers`: only owners and admins use the page (the API refuses an agent there with 403). */
export const NAV: { to: string; label: string; icon: IconName; section: string; managers?: boolean }[] = [
  { to: '/conversations', label: 'Conversations', icon: 'conversations', section: 'conversations' },
  { to: '/pipeline', label: 'Pipeline', icon: 'pipeline', section: 'pipeline' },
  { to: '/analytics', label: 'Analytics', icon: 'analytics', section: 'analytics' },
  { to: '/integrations', label: 'Integrations', icon: 'integrations', section: 'integrations', managers: true },
  { to: '/webhook-logs', label: 'Webhook logs', icon: 'logs', section: 'webhook-logs', managers: true },
  // Agents read it too (the API lets them): the page hides what only owners and admins may do.
  { to: '/developers/webhooks', label: 'Developers', icon: 'integrations', section: 'developers' },
  { to: '/agents', label: 'Agents', icon: 'agents', section: 'agents' },
  // Every role reads the company's actions; the page hides editing and testing from agents (the API refuses them).
  { to: '/actions', label: 'Actions', icon: 'integrations', section: 'actions' },
  { to: '/replays', label: 'Replay', icon: 'agents', section: 'replays' },
  // Every role reads what the agents called, and who approved it.
  { to: '/action-log', label: 'Action log', icon: 'logs', section: 'action-log' },
  { to: '/knowledge-base', label: 'Knowledge base', icon: 'knowledge', section: 'knowledge-base' },
  { to: '/canned-replies', label: 'Canned replies', icon: 'logs', section: 'canned-replies' },
  { to: '/llm-settings', label: 'LLM settings', icon: 'llm', section: 'llm-settings', managers: true },
  { to: '/credits', label: 'Credits', icon: 'credits', section: 'credits', managers: true },
  { to: '/team', label: 'Team', icon: 'team', section: 'team' },
  { to: '/notifications', label: 'Notifications', icon: 'settings', section: 'notifications' },
  { to: '/settings', label: 'Settings', icon: 'settings', section: 'settings', managers: true },
];

/** The pages this role may use; while the role is still loading, only the pages every role may use. */
export const navFor = (role: string | undefined) => NAV.filter((item) => !item.managers || role === 'owner' || role === 'admin');

export function Layout({ route, children }: { route: Route; children: ReactNode }) {
  const { me } = useAuth();
  const [menuOpen, setMenuOpen] = useState(false);
  const [loggingOut, setLoggingOut] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const navRef = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  const section = route.segments[0] ?? '';
  const current = NAV.find((item) => item.section === section);

  // On navigation: close the mobile menu, move focus to the new page's heading, set the title.
  useEffect(() => {
    setMenuOpen(false);
    document.title = `${current?.label ?? (section === 'search' ? 'Search' : 'Dashboard')} · Messaging Agent Service`;
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const frame = requestAnimationFrame(() => {
      const heading = mainRef.current?.querySelector<HTMLElement>('h1');
      if (heading && !mainRef.current?.contains(document.activeElement)) heading.focus({ preventScroll: false });
    });
    return () => cancelAnimationFrame(frame);
  }, [route.path, current?.label]);

  // Escape closes the mobile menu; focus goes into it when it opens.
  useEffect(() => {
    if (!menuOpen) return;
    navRef.current?.querySelector<HTMLElement>('a')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setMenuOpen(false);
        menuButtonRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  const companyName = me?.company.companyName;

  return (
    <div className={`shell${menuOpen ? ' menu-open' : ''}`}>
      <a className="skip-link" href="#main" onClick={(e) => {
        e.preventDefault();
        mainRef.current?.focus();
      }}>
        Skip to content
      </a>
      <header className="topbar">
        <button
          ref={menuButtonRef}
          type="button"
          className="menu-button"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Icon name={menuOpen ? 'close' : 'menu'} size={20} />
        </button>
        <Link to="/conversations" className="brand">
          <span className="brand-mark" aria-hidden="true">
            <Icon name="conversations" size={16} />
          </span>
          <span className="brand-text">Agent Service</span>
        </Link>
        <HeaderSearch />
        <div className="topbar-spacer" />
        <NotificationBell />
        <div className="topbar-company">
          <span className="company-name" data-testid="company-name">
            {companyName ?? <span className="skeleton skeleton-inline" aria-hidden="true" />}
          </span>
          {me && <span className="user-email">{me.user.email}</span>}
        </div>
        <Button
          variant="ghost"
          busy={loggingOut}
          onClick={async () => {
            setLoggingOut(true);
            await logout();
            setLoggingOut(false);
            navigate('/login', { replace: true });
          }}
        >
          <Icon name="logout" size={16} />
          Log out
        </Button>
      </header>
      <nav id="sidebar" ref={navRef} className="sidebar" aria-label="Main">
        <ul>
          {navFor(me?.user.role).map((item) => (
            <li key={item.to}>
              <Link to={item.to} className="nav-link" aria-current={item.section === section ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                <Icon name={item.icon} />
                <span>{item.label}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {menuOpen && <div className="scrim" aria-hidden="true" onClick={() => setMenuOpen(false)} />}
      <main id="main" ref={mainRef} className="main" tabIndex={-1}>
        <AiBacklogBanner />
        {children}
      </main>
    </div>
  );
}
