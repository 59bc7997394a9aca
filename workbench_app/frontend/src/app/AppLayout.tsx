import { useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { NavLink, Outlet, useNavigate } from "react-router";
import { api, data } from "../api/client";
import { useAssistantStatus } from "../features/assistant/useAssistantStatus";
import { LANGUAGE_NAMES, LANGUAGES, pickLanguage, type Language } from "../i18n/catalogues";
import { Button } from "../ui/Button";
import { SelectField } from "../ui/SelectField";
import styles from "./AppLayout.module.css";
import { SESSION_KEY, useSession } from "./session";

export function AppLayout() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const assistant = useAssistantStatus();
  const links = [
    { to: "/", label: t("nav.browse"), end: true },
    { to: "/dashboards", label: t("nav.dashboards") },
    { to: "/question/new", label: t("nav.newQuestion") },
    { to: "/sql", label: t("nav.newSql") },
    { to: "/data", label: t("nav.data") },
    { to: "/history", label: t("nav.history") },
    { to: "/tokens", label: t("nav.tokens") },
    ...(user.is_admin ? [{ to: "/audit", label: t("nav.audit") }] : []),
    // The assistant appears once a provider is configured; administrators can always reach its settings.
    ...(assistant.data?.enabled ? [{ to: "/assistant", label: t("nav.assistant") }] : []),
    ...(user.is_admin ? [{ to: "/settings/assistant", label: t("nav.assistantSettings") }] : []),
    ...(user.is_admin ? [{ to: "/admin/people", label: t("nav.people") },
      { to: "/admin/groups", label: t("nav.groups") }, { to: "/admin/sources", label: t("nav.sources") },
      { to: "/admin/settings", label: t("nav.settings") }, { to: "/admin/embedding", label: t("nav.embedding") },
      { to: "/themes", label: t("nav.themes") }, { to: "/admin/dashboard-cache", label: t("nav.dashboardCache") }] : []),
  ];

  async function chooseLanguage(locale: Language) {
    const updated = await data(api.PATCH("/me", { body: { locale } }));
    queryClient.setQueryData(SESSION_KEY, (old: object | null | undefined) => (old ? { ...old, user: updated } : old));
  }

  return (
    <div className={styles.shell}>
      <a href="#main" className={styles.skip}>{t("nav.skip")}</a>
      <header className={styles.sidebar}>
        <p className={styles.brand}>{t("app.name")}</p>
        <nav aria-label={t("nav.label")}>
          <ul className={styles.links}>
            {links.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.end ?? false}
                  className={({ isActive }) => (isActive ? `${styles.link} ${styles.active}` : styles.link)}>
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <section className={styles.account} aria-label={t("account.label")}>
          <p className={styles.who}>{user.display_name || user.email}</p>
          <SelectField label={t("account.language")} value={pickLanguage(user.locale)}
            options={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
            onChange={(language) => void chooseLanguage(language)} />
          <Button variant="ghost" onClick={() => void signOut().then(() => navigate("/sign-in"))}>
            {t("account.signOut")}
          </Button>
        </section>
      </header>
      <main id="main" className={styles.main} tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
