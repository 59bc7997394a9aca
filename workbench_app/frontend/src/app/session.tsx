// The signed-in person: read from GET /session, opened by the sign-in page, ended by sign-out or
// by any answer saying the session has ended (then the app returns to sign-in, and back after).
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router";
import { api, ApiError, data, setCsrfToken, whenSessionEnds } from "../api/client";
import type { components } from "../api/schema";
import { useLanguage } from "../i18n/i18n";
import { pickLanguage } from "../i18n/catalogues";

export type User = components["schemas"]["User"];
type SessionAnswer = components["schemas"]["Session"];

interface SessionValue {
  user: User;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);

export const SESSION_KEY = ["session"] as const;

async function readSession(): Promise<SessionAnswer | null> {
  try {
    const answer = await data(api.GET("/session"));
    setCsrfToken(answer.csrf_token);
    return answer;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

const sessionQuery = { queryKey: SESSION_KEY, queryFn: readSession, staleTime: Infinity, retry: 1 } as const;

export function useSessionQuery() {
  return useQuery(sessionQuery);
}

/** Asks for the session before the first render, while the screen's code downloads. Resolves to
 * whether someone is signed in (then the CSRF token is set, which a first read that posts needs). */
export function prefetchSession(queryClient: QueryClient): Promise<boolean> {
  return queryClient.fetchQuery(sessionQuery).then((answer) => answer !== null, () => false);
}

export function signInPath(location: { pathname: string; search: string }): string {
  const next = location.pathname + location.search;
  return next === "/" || next.startsWith("/sign-in") ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`;
}

/** Renders its children for a signed-in person; sends anyone else to sign-in (and back afterwards). */
export function RequireSession({ children, fallback }: { children: ReactNode; fallback: ReactNode }) {
  const session = useSessionQuery();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();

  useEffect(() => {
    whenSessionEnds(() => {
      setCsrfToken(null);
      queryClient.setQueryData(SESSION_KEY, null);
    });
  }, [queryClient]);

  useEffect(() => {
    if (session.isSuccess && session.data === null) void navigate(signInPath(location), { replace: true });
  }, [session.isSuccess, session.data, navigate, location]);

  const user = session.data?.user;
  // The account's language once signed in; the browser's before.
  useLanguage(user ? pickLanguage(user.locale) : pickLanguage(...navigator.languages));
  if (!user) return <>{fallback}</>;

  const value: SessionValue = {
    user,
    signOut: async () => {
      await api.DELETE("/session").catch(() => undefined);
      setCsrfToken(null);
      queryClient.clear();
      queryClient.setQueryData(SESSION_KEY, null);
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside RequireSession");
  return value;
}

/**
 * The submit of a page that opens a session (setup link, password link): busy and the refusal
 * while `open` runs its call, then the session kept and the app shown at "/".
 */
export function useSessionOpening() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function open(call: () => Promise<SessionAnswer>) {
    setBusy(true);
    setError(null);
    try {
      const session = await call();
      setCsrfToken(session.csrf_token);
      queryClient.setQueryData(SESSION_KEY, session);
      void navigate("/", { replace: true });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return { open, error, busy };
}
