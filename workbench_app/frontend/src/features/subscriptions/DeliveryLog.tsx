// A subscription's or an alert's delivery log, newest first: when, to whom, status, error.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { formatDateTime } from "../../i18n/i18n";
import { ErrorMessage } from "../../ui/ErrorMessage";
import styles from "../sharing/Sharing.module.css";
import { deliveriesQuery, type SendingKind } from "./subscriptionQueries";

export function DeliveryLog({ kind, id, name }: { kind: SendingKind; id: number; name: string }) {
  const { t } = useTranslation();
  const log = useQuery(deliveriesQuery(kind, id));
  if (log.error) return <ErrorMessage error={log.error} />;
  if (!log.data) return <p role="status">{t("common.loading")}</p>;
  if (log.data.length === 0) return <p className={styles.muted}>{t("subscriptions.log.empty", { name })}</p>;
  return (
    <table className={styles.table}>
      <caption>{t("subscriptions.log.caption", { name })}</caption>
      <thead>
        <tr>
          <th scope="col">{t("subscriptions.log.when")}</th>
          <th scope="col">{t("subscriptions.log.recipient")}</th>
          <th scope="col">{t("subscriptions.log.status")}</th>
          <th scope="col">{t("subscriptions.log.error")}</th>
        </tr>
      </thead>
      <tbody>
        {log.data.map((entry) => (
          <tr key={entry.delivery_id}>
            <td>{formatDateTime(entry.finished_at ?? entry.started_at)}</td>
            <td>{entry.recipient === "webhook" ? t("subscriptions.log.webhook")
              : entry.recipient === "check" ? t("subscriptions.log.check") : entry.recipient}</td>
            <td>{t(`subscriptions.status.${entry.status}`)}</td>
            <td>{entry.error_message ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
