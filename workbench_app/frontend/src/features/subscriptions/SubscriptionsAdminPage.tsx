// Administration: every subscription and alert of the installation, with its owner, target,
// schedule, state and last delivery; pause, resume, send or check now, the log, delete.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import adminStyles from "../admin/Admin.module.css";
import { SendingTable } from "./SendingTable";
import { everyonesAlertsQuery, everyonesSubscriptionsQuery } from "./subscriptionQueries";

export default function SubscriptionsAdminPage() {
  const { t } = useTranslation();
  const subscriptions = useQuery(everyonesSubscriptionsQuery());
  const alerts = useQuery(everyonesAlertsQuery());
  return (
    <div className={adminStyles.page}>
      <PageHeader title={t("subscriptions.admin.title")} />
      <p className={adminStyles.muted}>{t("subscriptions.admin.hint")}</p>
      <ErrorMessage error={subscriptions.error ?? alerts.error} />
      <section className={adminStyles.panel} aria-labelledby="all-subscriptions">
        <h2 id="all-subscriptions">{t("subscriptions.admin.subscriptions")}</h2>
        {subscriptions.data && <SendingTable kind="subscription" everyone items={subscriptions.data}
          caption={t("subscriptions.admin.subscriptions")} />}
      </section>
      <section className={adminStyles.panel} aria-labelledby="all-alerts">
        <h2 id="all-alerts">{t("subscriptions.admin.alerts")}</h2>
        {alerts.data && <SendingTable kind="alert" everyone items={alerts.data} caption={t("subscriptions.admin.alerts")} />}
      </section>
    </div>
  );
}
