import { lazy, Suspense, useEffect } from 'react';
import { AuthProvider, useAuth } from './auth.js';
import { Layout, NAV } from './components/Layout.js';
import { ToastProvider } from './components/Toasts.js';
import { EmptyState, Skeleton } from './components/ui.js';
import { Link, navigate, useRoute, type Route } from './lib/router.js';
import { AgentFormPage, AgentsPage } from './pages/Agents.js';
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

// The charts library loads with the Analytics page only, not with every other page.
const AnalyticsPage = lazy(async () => ({ default: (await import('./pages/Analytics.js')).AnalyticsPage }));
import { ReplaysPage } from './pages/Replays.js';

const PUBLIC = new Set(['', 'login', 'register']);

function Page({ route }: { route: Route }) {
  const { me } = useAuth();
  const [section = '', sub] = route.segments;
  const role = me?.user.role;
  if (role === 'agent' && NAV.some((item) => item.section === section && item.managers)) {
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
    case 'integrations':
      if (!sub) return <IntegrationsPage />;
      if (sub === 'new') return <IntegrationFormPage id={null} />;
      if (/^\d+$/.test(sub)) return <IntegrationFormPage key={sub} id={Number(sub)} />;
      break;
    case 'webhook-logs':
      return <WebhookLogsPage />;
    case 'agents':
      if (!sub) return <AgentsPage />;
      if (route.segments[2] === 'playground') return <PlaygroundPage key={sub} agentId={sub} />;
      return <AgentFormPage key={sub} id={sub === 'new' ? null : sub} />;
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
      <Page route={route} />
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
