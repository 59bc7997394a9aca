// A list of subscriptions or alerts with their actions: edit (where the list offers it), pause or
// resume, send now (an alert: check now), the delivery log, delete (asked first). The
// administrators' list adds each one's owner and target.
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import styles from "../sharing/Sharing.module.css";
import { DeliveryLog } from "./DeliveryLog";
import { sendingId, useSendingActions } from "./sendingActions";
import { describeSchedule, type Sending } from "./sendingDraft";
import type { SendingKind } from "./subscriptionQueries";

export function SendingTable({ kind, items, caption, everyone, onEdit }: {
  kind: SendingKind; items: Sending[]; caption: string; everyone?: boolean; onEdit?: (item: Sending) => void;
}) {
  const { t } = useTranslation();
  const actions = useSendingActions(kind);
  const [shownLog, setShownLog] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Sending | null>(null);
  const nameOf = (item: Sending) => item.name || t(`subscriptions.${kind}.unnamed`, { id: sendingId(kind, item) });
  const outcome = actions.runNow.data;
  const shown = items.find((item) => sendingId(kind, item) === shownLog);

  if (items.length === 0) return <p className={styles.muted}>{t(`subscriptions.${kind}.none`)}</p>;
  return (
    <>
      <table className={styles.table}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t("subscriptions.name")}</th>
            {everyone && <th scope="col">{t("subscriptions.owner")}</th>}
            {everyone && <th scope="col">{t("subscriptions.target")}</th>}
            <th scope="col">{t("subscriptions.schedule.label")}</th>
            <th scope="col">{t("subscriptions.to")}</th>
            <th scope="col">{t("subscriptions.state")}</th>
            <th scope="col">{t("subscriptions.lastDelivery")}</th>
            <th scope="col">{t("subscriptions.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const id = sendingId(kind, item);
            const name = nameOf(item);
            const last = item.last_delivery;
            return (
              <tr key={id}>
                <th scope="row">{name}</th>
                {everyone && <td>{item.owner_email ?? ""}</td>}
                {everyone && <td>{item.target_name ?? t("subscriptions.targetDeleted")}</td>}
                <td>{describeSchedule(t, item.schedule)}</td>
                <td>{item.channel === "webhook" ? t("subscriptions.webhookTo", { url: item.webhook_url ?? "" })
                  : item.recipients.map((recipient) => recipient.email).join(", ")}</td>
                <td>{item.paused ? t("subscriptions.paused")
                  : item.next_due_at ? t("subscriptions.nextAt", { when: formatDateTime(item.next_due_at) })
                  : t("subscriptions.stopped")}</td>
                <td>{last ? `${formatDateTime(last.started_at)} · ${t(`subscriptions.status.${last.status}`)}` : t("subscriptions.never")}</td>
                <td>
                  <div className={styles.actions}>
                    {onEdit && <Button onClick={() => onEdit(item)} aria-label={t("subscriptions.editNamed", { name })}>{t("subscriptions.edit")}</Button>}
                    <Button onClick={() => actions.pause.mutate({ id, paused: !item.paused })}
                      aria-label={t(item.paused ? "subscriptions.resumeNamed" : "subscriptions.pauseNamed", { name })}>
                      {t(item.paused ? "subscriptions.resume" : "subscriptions.pause")}
                    </Button>
                    <Button onClick={() => actions.runNow.mutate(id)} disabled={actions.runNow.isPending}
                      aria-label={t(`subscriptions.${kind}.runNowNamed`, { name })}>{t(`subscriptions.${kind}.runNow`)}</Button>
                    <Button onClick={() => setShownLog(shownLog === id ? null : id)} aria-expanded={shownLog === id}
                      aria-label={t("subscriptions.logNamed", { name })}>{t("subscriptions.log.title")}</Button>
                    <Button variant="danger" onClick={() => setDeleting(item)}
                      aria-label={t("subscriptions.deleteNamed", { name })}>{t("subscriptions.delete")}</Button>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p role="status" aria-live="polite">
        {actions.runNow.isPending ? t(`subscriptions.${kind}.running`)
          : outcome ? `${outcome.fired === false ? t("subscriptions.alert.didNotFire") + " " : ""}${t("subscriptions.outcome", outcome)}` : ""}
      </p>
      <ErrorMessage error={actions.error} />
      {shown && <DeliveryLog kind={kind} id={shownLog!} name={nameOf(shown)} />}
      {deleting && (
        <ConfirmDialog title={t("subscriptions.deleteTitle", { name: nameOf(deleting) })} danger
          confirmLabel={t("subscriptions.delete")} onCancel={() => setDeleting(null)}
          onConfirm={() => { actions.remove.mutate(sendingId(kind, deleting)); setDeleting(null); }} />
      )}
    </>
  );
}
