import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Suspense } from "react";
import { useTranslation } from "react-i18next";
import { BrowserRouter, matchPath, Route, Routes } from "react-router";
import { ApiError } from "../api/client";
import { prefetchDashboard } from "../features/dashboards/dashboardQueries";
import { SignInPage } from "../features/sign-in/SignInPage";
import { AdminLayout, isAdministration } from "./AdminLayout";
import { AppLayout } from "./AppLayout";
import { preloadable, type Preloadable } from "./preloadable";
import { prefetchSession, RequireSession } from "./session";

// Screens load on first visit: the first screen ships only what it draws.
const HomePage = preloadable(() => import("../features/home/HomePage"));
const BrowsePage = preloadable(() => import("../features/browse/BrowsePage"));
const SqlEditorPage = preloadable(() => import("../features/sql-editor/SqlEditorPage"));
const QuestionBuilderPage = preloadable(() => import("../features/question-builder/QuestionBuilderPage"));
const AnalysisPage = preloadable(() => import("../features/analyses/AnalysisPage"));
const SegmentsPage = preloadable(() => import("../features/segments/SegmentsPage"));
const QuestionPage = preloadable(() => import("../features/browse/QuestionPage"));
const DataPage = preloadable(() => import("../features/data/DataPage"));
const HistoryPage = preloadable(() => import("../features/history/HistoryPage"));
const AuditPage = preloadable(() => import("../features/history/AuditPage"));
const SetupPage = preloadable(() => import("../features/setup/SetupPage"));
const AdminSourcesPage = preloadable(() => import("../features/admin/SourcesPage"));
const AdminPeoplePage = preloadable(() => import("../features/admin/PeoplePage"));
const AdminGroupsPage = preloadable(() => import("../features/admin/GroupsPage"));
const TokensPage = preloadable(() => import("../features/admin/TokensPage"));
const AdminSettingsPage = preloadable(() => import("../features/admin/SettingsPage"));
const DashboardCachePage = preloadable(() => import("../features/admin/DashboardCachePage"));
const SetPasswordPage = preloadable(() => import("../features/sign-in/SetPasswordPage"));
const AssistantPage = preloadable(() => import("../features/assistant/AssistantPage"));
const AssistantSettingsPage = preloadable(() => import("../features/assistant/ProviderSettingsPage"));
const DashboardsPage = preloadable(() => import("../features/dashboards/DashboardsPage"));
const DashboardPage = preloadable(() => import("../features/dashboards/DashboardPage"));
const ThemesPage = preloadable(() => import("../features/themes/ThemesPage"));
const PrintDashboardPage = preloadable(() => import("../features/printing/PrintDashboardPage"));
const PublicDashboardPage = preloadable(() => import("../features/sharing/PublicDashboardPage"));
const EmbedPage = preloadable(() => import("../features/sharing/EmbedPage"));
const EmbeddingSecretsPage = preloadable(() => import("../features/sharing/EmbeddingSecretsPage"));
const SubscriptionsAdminPage = preloadable(() => import("../features/subscriptions/SubscriptionsAdminPage"));

// Where each lazily loaded screen is: the router's routes, and what `preloadScreen` looks up.
const PUBLIC_SCREENS: [string, Preloadable<object>][] = [
  ["/setup", SetupPage],
  ["/set-password", SetPasswordPage],
  ["/print/dashboards/:dashboardId", PrintDashboardPage],
  ["/public/:linkToken", PublicDashboardPage],
  ["/embed", EmbedPage],
];
const SIGNED_IN_SCREENS: [string, Preloadable<object>][] = [
  ["/", HomePage],
  ["/browse", BrowsePage],
  ["/browse/:folderId", BrowsePage],
  ["/sql", SqlEditorPage],
  ["/question/new", QuestionBuilderPage],
  ["/analysis/new", AnalysisPage],
  ["/segments", SegmentsPage],
  ["/questions/:questionId", QuestionPage],
  ["/data", DataPage],
  ["/history", HistoryPage],
  ["/audit", AuditPage],
  ["/admin/sources", AdminSourcesPage],
  ["/admin/people", AdminPeoplePage],
  ["/admin/groups", AdminGroupsPage],
  ["/tokens", TokensPage],
  ["/admin/settings", AdminSettingsPage],
  ["/admin/dashboard-cache", DashboardCachePage],
  ["/admin/embedding", EmbeddingSecretsPage],
  ["/admin/subscriptions", SubscriptionsAdminPage],
  ["/assistant", AssistantPage],
  ["/assistant/:conversationId", AssistantPage],
  ["/settings/assistant", AssistantSettingsPage],
  ["/dashboards", DashboardsPage],
  ["/dashboards/:dashboardId", DashboardPage],
  ["/themes", ThemesPage],
];

// What a screen reads first, asked for beside the session and the screen's code.
type FirstReads = (params: Record<string, string | undefined>, search: string, signedIn: Promise<boolean>) => void;
const FIRST_READS: Record<string, FirstReads> = {
  "/dashboards/:dashboardId": (params, search, signedIn) => prefetchDashboard(queryClient, Number(params.dashboardId), search, signedIn),
};

const matching = (screens: [string, Preloadable<object>][], pathname: string) =>
  screens.find(([path]) => matchPath(path, pathname));

/** Fetches the code of the screen at `pathname`, and the session and first reads if it needs them,
 * before the first render: the screen then draws without a Suspense fallback (see preloadable.ts).
 * (Holding the first render for the reads too was measured: no gain on a cached dashboard.) */
export function preloadScreen(pathname: string, search = ""): Promise<unknown> {
  const signedIn = matching(SIGNED_IN_SCREENS, pathname);
  if (signedIn) {
    const session = prefetchSession(queryClient);
    FIRST_READS[signedIn[0]]?.(matchPath(signedIn[0], pathname)?.params ?? {}, search, session);
  }
  return (matching(PUBLIC_SCREENS, pathname) ?? signedIn)?.[1].preload() ?? Promise.resolve();
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal will not change by asking again; a network failure might.
      retry: (count, error) => !(error instanceof ApiError) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

function Loading() {
  const { t } = useTranslation();
  return <p role="status" aria-live="polite">{t("common.loading")}</p>;
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/sign-in" element={<SignInPage />} />
            {/* /print/... is opened by the server's own headless browser to print a PDF (no session: a print ticket). */}
            {PUBLIC_SCREENS.map(([path, Screen]) => <Route key={path} path={path} element={<Screen />} />)}
            <Route element={<RequireSession fallback={<Loading />}><AppLayout /></RequireSession>}>
              {SIGNED_IN_SCREENS.filter(([path]) => !isAdministration(path)).map(([path, Screen]) => path === "/"
                ? <Route key={path} index element={<Screen />} />
                : <Route key={path} path={path.slice(1)} element={<Screen />} />)}
              {/* The administration screens share their sub-navigation. */}
              <Route element={<AdminLayout />}>
                {SIGNED_IN_SCREENS.filter(([path]) => isAdministration(path)).map(([path, Screen]) =>
                  <Route key={path} path={path.slice(1)} element={<Screen />} />)}
              </Route>
              <Route path="*" element={<NotFound />} />
            </Route>
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

function NotFound() {
  const { t } = useTranslation();
  return <h1>{t("common.notFound")}</h1>;
}
