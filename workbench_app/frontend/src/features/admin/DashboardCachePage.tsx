// Administrators: the dashboard result cache, per dashboard — hits, misses, hit ratio, fresh
// entries, how long results are kept and whether the dashboard is warmed up after builds.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import styles from "./Admin.module.css";
import { dashboardCacheQuery } from "./adminQueries";

export default function DashboardCachePage() {
  const { t, i18n } = useTranslation();
  const counts = useQuery(dashboardCacheQuery());
  const percent = new Intl.NumberFormat(i18n.language, { style: "percent", maximumFractionDigits: 1 });
  const number = new Intl.NumberFormat(i18n.language);
  const rows = counts.data?.dashboards ?? [];
  return (
    <div className={styles.page}>
      <PageHeader title={t("admin.cache.title")} />
      <p className={styles.muted}>{t("admin.cache.intro")}</p>
      <ErrorMessage error={counts.error} />
      {counts.data && rows.length === 0 && <p>{t("admin.cache.none")}</p>}
      {rows.length > 0 && (
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">{t("admin.cache.dashboard")}</th>
              <th scope="col">{t("admin.cache.hits")}</th>
              <th scope="col">{t("admin.cache.misses")}</th>
              <th scope="col">{t("admin.cache.ratio")}</th>
              <th scope="col">{t("admin.cache.entries")}</th>
              <th scope="col">{t("admin.cache.ttl")}</th>
              <th scope="col">{t("admin.cache.warmUp")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.dashboard_id} data-testid="cache-row">
                <th scope="row"><Link to={`/dashboards/${row.dashboard_id}`}>{row.name}</Link></th>
                <td>{number.format(row.hits)}</td>
                <td>{number.format(row.misses)}</td>
                <td>{row.hit_ratio === null ? t("admin.cache.noRuns") : percent.format(row.hit_ratio)}</td>
                <td>{number.format(row.entries)}</td>
                <td>{row.cache_ttl_seconds ? t("admin.cache.seconds", { count: row.cache_ttl_seconds }) : t("admin.cache.off")}</td>
                <td>{row.warm_up ? t("admin.cache.yes") : t("admin.cache.no")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
