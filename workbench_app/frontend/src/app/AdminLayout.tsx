// Administration: one entry of the main menu, its screens under their own sub-navigation. Only
// administrators see it; the server refuses its calls to anyone else whatever the browser shows.
import { useTranslation } from "react-i18next";
import { NavLink, Outlet } from "react-router";
import styles from "./AdminLayout.module.css";
import menu from "./AppLayout.module.css"; // the links look like the main menu's
import { useSession } from "./session";

/** The administration screens, in the order of their sub-navigation (paths as routed in App.tsx). */
export const ADMIN_LINKS = [
  { to: "/admin/people", label: "nav.people" },
  { to: "/admin/groups", label: "nav.groups" },
  { to: "/admin/sources", label: "nav.sources" },
  { to: "/admin/settings", label: "nav.settings" },
  { to: "/admin/embedding", label: "nav.embedding" },
  { to: "/admin/subscriptions", label: "nav.subscriptions" },
  { to: "/themes", label: "nav.themes" },
  { to: "/admin/dashboard-cache", label: "nav.dashboardCache" },
  { to: "/audit", label: "nav.audit" },
  { to: "/settings/assistant", label: "nav.assistantSettings" },
] as const;

export const isAdministration = (pathname: string) =>
  ADMIN_LINKS.some((link) => pathname === link.to || pathname.startsWith(`${link.to}/`));

export function AdminLayout() {
  const { t } = useTranslation();
  const { user } = useSession();
  if (!user.is_admin) return <h1>{t("common.notFound")}</h1>;
  return (
    <div className={styles.admin}>
      <nav aria-label={t("nav.adminLabel")} className={styles.subnav}>
        <ul>
          {ADMIN_LINKS.map((link) => (
            <li key={link.to}>
              <NavLink to={link.to} className={({ isActive }) => (isActive ? `${menu.link} ${menu.active}` : menu.link)}>
                {t(link.label)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className={styles.screen}>
        <Outlet />
      </div>
    </div>
  );
}
