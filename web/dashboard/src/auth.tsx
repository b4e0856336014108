import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { getSession, onSessionChange } from './api/client.js';
import { getMe } from './api/endpoints.js';
import type { Me } from './api/types.js';
import { useToast } from './components/Toasts.js';
import { useAsync } from './lib/useAsync.js';

interface AuthState {
  loggedIn: boolean;
  me: Me | undefined;
  meError: unknown;
  reloadMe: () => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const toast = useToast();
  const [loggedIn, setLoggedIn] = useState(() => getSession() !== null);

  useEffect(
    () =>
      onSessionChange((session, reason) => {
        setLoggedIn(session !== null);
        if (!session && reason === 'expired') toast.info('Your session has expired — please log in again');
      }),
    [toast],
  );

  const me = useAsync<Me | undefined>((signal) => (loggedIn ? getMe({ signal }) : Promise.resolve(undefined)), [loggedIn]);

  return (
    <AuthContext.Provider value={{ loggedIn, me: loggedIn ? me.data : undefined, meError: me.error, reloadMe: me.reload }}>
      {children}
    </AuthContext.Provider>
  );
}
