import { lazy, Suspense, useEffect } from 'react';
import { AuthProvider, useAuth } from './auth.js';
import { Layout, NAV } from './components/Layout.js';
import { ToastProvider } from './components/Toasts.js';
import { EmptyState, Skeleton } from './components/ui.js';
import { Link, navigate, useRoute, type Route } from './lib/router.js';
import { AcceptInvitationPage, LoginPage, RegisterPage } from './pages/Auth.js';
import { ConversationsPage } from './pages/Conversations.js';
import { CreditsPage } from './pages/Credits.js';
import { IntegrationFormPage, IntegrationsPage } from './pages/Integrations.js';
import { KnowledgeBasePage } from './pages/KnowledgeBase.js';
import { LlmSettingsPage } from './pages/LlmSettings.js';
import { PipelinePage } from './pages/Pipeline.js';
import { SearchPage } from './pages/Search.js';
import { SettingsPage } from './pages/Settings.js';
import { TeamPage } from './pages/Team.js';
import { NotificationsPage } from './pages/Notifications.js';
import { WebhookLogsPage } from './pages/WebhookLogs.js';
import { CannedRepliesPage } from './pages/CannedReplies.js';
import { PlaygroundPage } from './pages/Playground.js';

// The charts library loads with the Analytics page only, not with every other page; the agent pages (versions,
// tests) and replays load when first opened too, keeping the first load under the bundle budget.
const AnalyticsPage = lazy(async () => ({ default: (await import('./pages/Analytics.js')).AnalyticsPage }));
const ActionLogPage = lazy(async () => ({ default: (await import('./pages/ActionLog.js')).ActionLogPage }));
const AgentsPage = lazy(async () => ({ default: (await import('./pages/Agents.js')).AgentsPage }));
const AgentFormPage = lazy(async () => ({ default: (await import('./pages/Agents.js')).AgentFormPage }));
const ReplaysPage = lazy(async () => ({ default: (await import('./pages/Replays.js')).ReplaysPage }));
// Developers → Webhooks loads with its pages only: the main bundle stays within its size budget.
const WebhooksPage = lazy(async () => ({ default: (await import('./pages/Webhooks.js')).WebhooksPage }));
// Actions load with their page only, like the other agent pages.
const ActionsPage = lazy(async () => ({ default: (await import('./pages/Actions.js')).ActionsPage }));
const WebhookEndpointLogPage = lazy(async () => ({ default: (await import('./pages/WebhookEndpointLog.js')).WebhookEndpointLogPage }));

const PUBLIC = new Set(['', 'login', 'register']);

function Page({ route }: { route: Route }) {
  const { me, meError } = useAuth();
  const [section = '', sub] = route.segments;
  const role = me?.user.role;
  const managersOnly = NAV.some((item) => item.section === section && item.managers);
  // A managers' page waits for the role: rendered first, it would fire requests an agent is refused (403s).
  if (managersOnly && !me && !meError) return <Skeleton rows={4} label="Loading…" />;
  if (role === 'agent' && managersOnly) {
    return (
      <EmptyState title="Not available for your role">
        Owners and admins manage this page. <Link to="/conversations">Go to Conversations</Link>.
      </EmptyState>
    );
  }
  switch (section) {
    case 'conversations':
      return <ConversationsPage id={sub ?? null} />;
    case 'pipeline':
      return <PipelinePage />;
    case 'analytics':
      return (
        <Suspense fallback={<Skeleton rows={6} label="Loading analytics…" />}>
          <AnalyticsPage />
        </Suspense>
      );
    case 'search':
      return <SearchPage />;
    case 'action-log':
      return (
        <Suspense fallback={<Skeleton rows={6} label="Loading the action log…" />}>
          <ActionLogPage />
        </Suspense>
      );
    case 'integrations':
      if (!sub) return <IntegrationsPage />;
      if (sub === 'new') return <IntegrationFormPage id={null} />;
      if (/^\d+$/.test(sub)) return <IntegrationFormPage key={sub} id={Number(sub)} />;
      break;
    case 'webhook-logs':
      return <WebhookLogsPage />;
    case 'developers': {
      // Developers → Webhooks (the section's one page for now): /developers/webhooks[/<endpointId>].
      const endpointId = route.segments[2];
      if (sub && sub !== 'webhooks') break;
      return (
        <Suspense fallback={<Skeleton rows={6} label="Loading webhooks…" />}>
          {endpointId ? <WebhookEndpointLogPage key={endpointId} id={endpointId} /> : <WebhooksPage />}
        </Suspense>
      );
    }
    case 'agents':
      if (!sub) return <AgentsPage />;
      if (route.segments[2] === 'playground') return <PlaygroundPage key={sub} agentId={sub} />;
      return <AgentFormPage key={sub} id={sub === 'new' ? null : sub} tab={route.segments[2] === 'versions' || route.segments[2] === 'tests' || route.segments[2] === 'experiment' || route.segments[2] === 'release' ? route.segments[2] : 'settings'} />;
    case 'actions':
      return <ActionsPage id={sub ?? null} />;
    case 'knowledge-base':
      return <KnowledgeBasePage />;
    case 'replays':
      return <ReplaysPage id={sub ?? null} />;
    case 'canned-replies':
      return <CannedRepliesPage />;
    case 'llm-settings':
      return <LlmSettingsPage />;
    case 'credits':
      return <CreditsPage />;
    case 'settings':
      return <SettingsPage />;
    case 'team':
      return <TeamPage />;
    case 'notifications':
      return <NotificationsPage />;
  }
  return (
    <EmptyState title="Page not found">
      There is nothing at <code className="code-inline">{route.path}</code>. <Link to="/conversations">Go to Conversations</Link>.
    </EmptyState>
  );
}

function Routes() {
  const { loggedIn } = useAuth();
  const route = useRoute();
  const section = route.segments[0] ?? '';

  useEffect(() => {
    if (loggedIn && PUBLIC.has(section)) navigate('/conversations', { replace: true });
  }, [loggedIn, section]);

  // Reached from an invitation link, signed in or not: accepting signs the new teammate in.
  if (section === 'accept-invitation') return <AcceptInvitationPage token={route.segments[1] ?? ''} />;
  if (!loggedIn) return section === 'register' ? <RegisterPage /> : <LoginPage />;
  if (PUBLIC.has(section)) return null;
  return (
    <Layout route={route}>
      <Suspense fallback={<Skeleton rows={4} label="Loading…" />}>
        <Page route={route} />
      </Suspense>
    </Layout>
  );
}

export function App() {
  return (
    <ToastProvider>
      <AuthProvider>
        <Routes />
      </AuthProvider>
    </ToastProvider>
  );
}
