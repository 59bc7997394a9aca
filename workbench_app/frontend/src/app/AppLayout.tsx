import { useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { api, data } from "../api/client";
import { useAssistantStatus } from "../features/assistant/useAssistantStatus";
import { LANGUAGE_NAMES, LANGUAGES, pickLanguage, type Language } from "../i18n/catalogues";
import { Button } from "../ui/Button";
import { SelectField } from "../ui/SelectField";
import { ADMIN_LINKS, isAdministration } from "./AdminLayout";
import styles from "./AppLayout.module.css";
import { SESSION_KEY, useSession } from "./session";

export function AppLayout() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const assistant = useAssistantStatus();
  const location = useLocation();
  // Analysts' screens; administration is one entry whose screens have their own sub-navigation.
  const links = [
    { to: "/", label: t("nav.home"), end: true },
    { to: "/browse", label: t("nav.browse") },
    { to: "/dashboards", label: t("nav.dashboards") },
    { to: "/question/new", label: t("nav.newQuestion") },
    { to: "/analysis/new", label: t("nav.newAnalysis") },
    { to: "/segments", label: t("nav.segments") },
    { to: "/sql", label: t("nav.newSql") },
    { to: "/data", label: t("nav.data") },
    { to: "/history", label: t("nav.history") },
    // The assistant appears once a provider is configured (administrators set it up under Administration).
    ...(assistant.data?.enabled ? [{ to: "/assistant", label: t("nav.assistant") }] : []),
    ...(user.is_admin ? [{ to: ADMIN_LINKS[0].to, label: t("nav.administration"), active: isAdministration(location.pathname) }] : []),
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
                <NavLink to={link.to} end={"end" in link && link.end}
                  aria-current={"active" in link && link.active ? "page" : undefined}
                  className={({ isActive }) => (isActive || ("active" in link && link.active) ? `${styles.link} ${styles.active}` : styles.link)}>
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <section className={styles.account} aria-label={t("account.label")}>
          <p className={styles.who}>{user.display_name || user.email}</p>
          {/* Each person's own tokens: not an administration screen. */}
          <NavLink to="/tokens" className={({ isActive }) => (isActive ? `${styles.link} ${styles.active}` : styles.link)}>
            {t("nav.tokens")}
          </NavLink>
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
