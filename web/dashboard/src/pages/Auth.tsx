import { useState, type FormEvent, type ReactNode } from 'react';
import { describeError } from '../api/client.js';
import { acceptInvitation, login, previewInvitation, register, setOwnName } from '../api/endpoints.js';
import { useAsync } from '../lib/useAsync.js';
import { Button, ErrorState, InlineError, Skeleton, TextField, Time } from '../components/ui.js';
import { useSubmit, type Submit } from '../components/useSubmit.js';
import { Link, navigate, useRoute } from '../lib/router.js';

function AuthCard({ title, subtitle, children, footer }: { title: string; subtitle: string; children: ReactNode; footer: ReactNode }) {
  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <div className="auth-brand" aria-hidden="true">
          <span className="brand-mark">
            <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
              <path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" />
            </svg>
          </span>
          Messaging Agent Service
        </div>
        <h1 className="auth-title">{title}</h1>
        <p className="auth-subtitle">{subtitle}</p>
        {children}
        <p className="auth-footer">{footer}</p>
      </main>
    </div>
  );
}

/** The button and error line under each auth form; the page goes away when the submission succeeds. */
function AuthSubmit({ submit, children }: { submit: Submit; children: ReactNode }) {
  return (
    <>
      <InlineError error={submit.error} />
      <Button type="submit" variant="primary" busy={submit.busy} className="btn-block">
        {children}
      </Button>
    </>
  );
}

/** After logging in: stay on a deep link, otherwise go to Conversations. */
function afterLogin(path: string) {
  if (path === '/' || path === '/login' || path === '/register') navigate('/conversations', { replace: true });
}

export function LoginPage() {
  const route = useRoute();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void submit.run(async () => {
      await login(email.trim(), password);
      afterLogin(route.path);
    }, { leaves: true });
  }

  return (
    <AuthCard
      title="Log in"
      subtitle="Welcome back. Log in to manage your agents and conversations."
      footer={
        <>
          New here? <Link to="/register">Create an account</Link>
        </>
      }
    >
      <form className="form" onSubmit={onSubmit} noValidate={false}>
        <TextField label="Email" type="email" autoComplete="username" required value={email} onValueChange={setEmail} autoFocus />
        <TextField label="Password" type="password" autoComplete="current-password" required value={password} onValueChange={setPassword} />
        <AuthSubmit submit={submit}>Log in</AuthSubmit>
      </form>
    </AuthCard>
  );
}

export function RegisterPage() {
  const [name, setName] = useState('');
  const [companyName, setCompanyName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void submit.run(async () => {
      await register(email.trim(), password, companyName.trim());
      try {
        await login(email.trim(), password);
      } catch (err) {
        throw new Error(`Your account was created, but logging in failed: ${describeError(err)}`);
      }
      // The sign-up body is the spec's (no name): the name is set right after, as the owner's first step.
      // Should it fail, the account works anyway and the Team page asks again.
      await setOwnName(name.trim()).catch(() => undefined);
      navigate('/conversations', { replace: true });
    }, { leaves: true });
  }

  return (
    <AuthCard
      title="Create your account"
      subtitle="Sign up to get a company workspace with $5 in free credits and a ready-made sales pipeline."
      footer={
        <>
          Already have an account? <Link to="/login">Log in instead</Link>
        </>
      }
    >
      <form className="form" onSubmit={onSubmit}>
        <TextField label="Your name" autoComplete="name" required maxLength={200} value={name} onValueChange={setName} autoFocus hint="How your teammates see you." />
        <TextField label="Company name" autoComplete="organization" required value={companyName} onValueChange={setCompanyName} />
        <TextField label="Email" type="email" autoComplete="email" required value={email} onValueChange={setEmail} />
        <TextField label="Password" type="password" autoComplete="new-password" required value={password} onValueChange={setPassword} />
        <AuthSubmit submit={submit}>Sign up</AuthSubmit>
      </form>
    </AuthCard>
  );
}

/** The page an invitation link opens: who invited whom, then a name and a password to join. */
export function AcceptInvitationPage({ token }: { token: string }) {
  const preview = useAsync((signal) => previewInvitation(token, { signal }), [token]);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void submit.run(async () => {
      await acceptInvitation(token, name.trim(), password);
      navigate('/conversations', { replace: true });
    }, { leaves: true });
  }

  const invitation = preview.data;
  return (
    <AuthCard
      title="Join your team"
      subtitle={invitation ? `You are invited to ${invitation.companyName} as ${invitation.role}.` : 'Accept your invitation.'}
      footer={
        <>
          Already have an account? <Link to="/login">Log in instead</Link>
        </>
      }
    >
      {preview.loading && !invitation ? (
        <Skeleton rows={2} label="Checking the invitation…" />
      ) : preview.error ? (
        <ErrorState error={preview.error} title="This invitation cannot be used" />
      ) : invitation ? (
        <form className="form" onSubmit={onSubmit}>
          <p className="muted small" data-testid="invitation-email">
            {invitation.email} · expires <Time iso={invitation.expiresAt} />
          </p>
          <TextField label="Name" autoComplete="name" required maxLength={200} value={name} onValueChange={setName} autoFocus />
          <TextField label="Password" type="password" autoComplete="new-password" required minLength={8} value={password} onValueChange={setPassword} hint="At least 8 characters" />
          <AuthSubmit submit={submit}>Join team</AuthSubmit>
        </form>
      ) : null}
    </AuthCard>
  );
}
