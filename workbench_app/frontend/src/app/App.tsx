import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { BrowserRouter, Route, Routes } from "react-router";
import { ApiError } from "../api/client";
import { SignInPage } from "../features/sign-in/SignInPage";
import { AppLayout } from "./AppLayout";
import { RequireSession } from "./session";

// Screens load on first visit: the first screen ships only what it draws.
const BrowsePage = lazy(() => import("../features/browse/BrowsePage"));
const SqlEditorPage = lazy(() => import("../features/sql-editor/SqlEditorPage"));
const QuestionBuilderPage = lazy(() => import("../features/question-builder/QuestionBuilderPage"));
const QuestionPage = lazy(() => import("../features/browse/QuestionPage"));
const DataPage = lazy(() => import("../features/data/DataPage"));
const HistoryPage = lazy(() => import("../features/history/HistoryPage"));
const AuditPage = lazy(() => import("../features/history/AuditPage"));
const SetupPage = lazy(() => import("../features/setup/SetupPage"));
const AdminSourcesPage = lazy(() => import("../features/admin/SourcesPage"));
const AdminPeoplePage = lazy(() => import("../features/admin/PeoplePage"));
const AdminGroupsPage = lazy(() => import("../features/admin/GroupsPage"));
const TokensPage = lazy(() => import("../features/admin/TokensPage"));
const AdminSettingsPage = lazy(() => import("../features/admin/SettingsPage"));
const DashboardCachePage = lazy(() => import("../features/admin/DashboardCachePage"));
const SetPasswordPage = lazy(() => import("../features/sign-in/SetPasswordPage"));
const AssistantPage = lazy(() => import("../features/assistant/AssistantPage"));
const AssistantSettingsPage = lazy(() => import("../features/assistant/ProviderSettingsPage"));
const DashboardsPage = lazy(() => import("../features/dashboards/DashboardsPage"));
const DashboardPage = lazy(() => import("../features/dashboards/DashboardPage"));
const ThemesPage = lazy(() => import("../features/themes/ThemesPage"));
const PrintDashboardPage = lazy(() => import("../features/printing/PrintDashboardPage"));
const PublicDashboardPage = lazy(() => import("../features/sharing/PublicDashboardPage"));
const EmbedPage = lazy(() => import("../features/sharing/EmbedPage"));
const EmbeddingSecretsPage = lazy(() => import("../features/sharing/EmbeddingSecretsPage"));

const queryClient = new QueryClient({
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
            <Route path="/setup" element={<SetupPage />} />
            <Route path="/set-password" element={<SetPasswordPage />} />
            {/* Opened by the server's own headless browser to print a PDF (no session: a print ticket). */}
            <Route path="/print/dashboards/:dashboardId" element={<PrintDashboardPage />} />
            <Route path="/public/:linkToken" element={<PublicDashboardPage />} />
            <Route path="/embed" element={<EmbedPage />} />
            <Route element={<RequireSession fallback={<Loading />}><AppLayout /></RequireSession>}>
              <Route index element={<BrowsePage />} />
              <Route path="browse/:folderId" element={<BrowsePage />} />
              <Route path="sql" element={<SqlEditorPage />} />
              <Route path="question/new" element={<QuestionBuilderPage />} />
              <Route path="questions/:questionId" element={<QuestionPage />} />
              <Route path="data" element={<DataPage />} />
              <Route path="history" element={<HistoryPage />} />
              <Route path="audit" element={<AuditPage />} />
              <Route path="admin/sources" element={<AdminSourcesPage />} />
              <Route path="admin/people" element={<AdminPeoplePage />} />
              <Route path="admin/groups" element={<AdminGroupsPage />} />
              <Route path="tokens" element={<TokensPage />} />
              <Route path="admin/settings" element={<AdminSettingsPage />} />
              <Route path="admin/dashboard-cache" element={<DashboardCachePage />} />
              <Route path="admin/embedding" element={<EmbeddingSecretsPage />} />
              <Route path="assistant" element={<AssistantPage />} />
              <Route path="assistant/:conversationId" element={<AssistantPage />} />
              <Route path="settings/assistant" element={<AssistantSettingsPage />} />
              <Route path="dashboards" element={<DashboardsPage />} />
              <Route path="dashboards/:dashboardId" element={<DashboardPage />} />
              <Route path="themes" element={<ThemesPage />} />
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
