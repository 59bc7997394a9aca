// "Subscriptions" on a dashboard's or a question's page: its subscriptions (the person's own, or
// everyone's for an administrator), each sent on a schedule by e-mail or to a webhook; a dashboard's
// with filter values of its own.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import type { SavedFilter } from "../dashboards/dashboardDraft";
import adminStyles from "../admin/Admin.module.css";
import { SendingDialog, SendingForm, useSendingEditor } from "./SendingDialog";
import { SendingFields } from "./SendingFields";
import { newSendingDraft, sendingBody, sendingDraftOf, type SendingDraft, type Subscription } from "./sendingDraft";
import { SendingTable } from "./SendingTable";
import { targetSubscriptionsQuery, type TargetKind } from "./subscriptionQueries";

interface Editing { id: number | null; draft: SendingDraft; filters: Record<string, string> }

export function SubscriptionsButton({ kind, targetId, name, filters = [] }: {
  kind: TargetKind; targetId: number; name: string; filters?: SavedFilter[];
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t("subscriptions.subscription.button")}</Button>
      {open && (
        <SendingDialog title={t("subscriptions.subscription.title", { name })} onClose={() => setOpen(false)}>
          <Subscriptions kind={kind} targetId={targetId} filters={filters} />
        </SendingDialog>
      )}
    </>
  );
}

function Subscriptions({ kind, targetId, filters }: { kind: TargetKind; targetId: number; filters: SavedFilter[] }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const list = useQuery(targetSubscriptionsQuery(kind, targetId));
  const editor = useSendingEditor(({ id, draft, filters: values }: Editing) => {
    const chosen = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));
    return data(id === null
      ? api.POST("/subscriptions", { body: { ...sendingBody(draft, true), target_kind: kind, target_id: targetId, filters: chosen } })
      : api.PATCH("/subscriptions/{subscription_id}", { params: { path: { subscription_id: id } },
        body: { ...sendingBody(draft, false), filters: chosen } }));
  });
  const { editing, setEditing, start, set } = editor;

  return (
    <>
      <ErrorMessage error={list.error} />
      {list.data && (
        <SendingTable kind="subscription" items={list.data} caption={t("subscriptions.subscription.caption")}
          onEdit={(item) => {
            const subscription = item as Subscription;
            start({ id: subscription.subscription_id, draft: sendingDraftOf(subscription), filters: { ...subscription.filters } });
          }} />
      )}
      {editing ? (
        <SendingForm editor={editor} editing={editing}
          headings={[t("subscriptions.subscription.new"), t("subscriptions.subscription.change")]}>
          <SendingFields draft={editing.draft} set={set} creating={editing.id === null} />
          {filters.length > 0 && (
            <fieldset className={adminStyles.grid}>
              <legend>{t("subscriptions.filters")}</legend>
              {filters.map((filter) => {
                const key = String(filter.filter_id);
                const value = editing.filters[key] ?? editing.filters[filter.name] ?? "";
                return (
                  <TextField key={key} label={filter.name} value={value} maxLength={500} hint={t("subscriptions.filterHint")}
                    onChange={(typed) => setEditing((old) => {
                      if (!old) return old;
                      const next = { ...old.filters, [key]: typed };
                      delete next[filter.name]; // kept by id from now on
                      return { ...old, filters: next };
                    })} />
                );
              })}
            </fieldset>
          )}
        </SendingForm>
      ) : (
        <div>
          <Button variant="primary" onClick={() => start({ id: null, draft: newSendingDraft(user.email), filters: {} })}>
            {t("subscriptions.subscription.new")}
          </Button>
        </div>
      )}
    </>
  );
}
