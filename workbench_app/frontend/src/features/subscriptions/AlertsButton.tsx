// "Alerts" on a question's page: the question watched on a schedule, firing when its result has
// rows, when a number of its first row goes above or below a threshold, or when it changes by more
// than a percentage since the previous check; once or every time.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { SendingDialog, SendingForm, useSendingEditor } from "./SendingDialog";
import { SendingFields } from "./SendingFields";
import { newSendingDraft, sendingBody, sendingDraftOf, type Alert, type SendingDraft } from "./sendingDraft";
import { SendingTable } from "./SendingTable";
import { questionAlertsQuery } from "./subscriptionQueries";
import { SubscriptionsButton } from "./SubscriptionsButton";

type Condition = Alert["condition"];
type Repeat = Alert["repeat"];
interface Watch { condition: Condition; value_column: string; threshold: string; repeat: Repeat }
interface Editing { id: number | null; draft: SendingDraft; watch: Watch }

const CONDITIONS: Condition[] = ["has_rows", "above", "below", "changes_by"];

function watchBody(watch: Watch) {
  const onRows = watch.condition === "has_rows";
  return {
    condition: watch.condition, repeat: watch.repeat,
    value_column: onRows ? null : watch.value_column.trim(),
    threshold: onRows ? null : watch.threshold.trim() === "" ? null : Number(watch.threshold),
  };
}

/** A saved question's page: its subscriptions and its alerts. */
export function QuestionSendingButtons({ questionId, name }: { questionId: number; name: string }) {
  return (
    <>
      <SubscriptionsButton kind="question" targetId={questionId} name={name} />
      <AlertsButton questionId={questionId} name={name} />
    </>
  );
}

export function AlertsButton({ questionId, name }: { questionId: number; name: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t("subscriptions.alert.button")}</Button>
      {open && (
        <SendingDialog title={t("subscriptions.alert.title", { name })} onClose={() => setOpen(false)}>
          <Alerts questionId={questionId} />
        </SendingDialog>
      )}
    </>
  );
}

function Alerts({ questionId }: { questionId: number }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const list = useQuery(questionAlertsQuery(questionId));
  const editor = useSendingEditor(({ id, draft, watch: watched }: Editing) => data(id === null
    ? api.POST("/alerts", { body: { ...sendingBody(draft, true), ...watchBody(watched), question_id: questionId } })
    : api.PATCH("/alerts/{alert_id}", { params: { path: { alert_id: id } }, body: { ...sendingBody(draft, false), ...watchBody(watched) } })));
  const { editing, setEditing, start, set } = editor;
  const watch = (changes: Partial<Watch>) => setEditing((old) => old && { ...old, watch: { ...old.watch, ...changes } });

  return (
    <>
      <ErrorMessage error={list.error} />
      {list.data && (
        <SendingTable kind="alert" items={list.data} caption={t("subscriptions.alert.caption")}
          onEdit={(item) => {
            const alert = item as Alert;
            start({ id: alert.alert_id, draft: sendingDraftOf(alert), watch: {
              condition: alert.condition, value_column: alert.value_column ?? "",
              threshold: alert.threshold === null ? "" : String(alert.threshold), repeat: alert.repeat } });
          }} />
      )}
      {editing ? (
        <SendingForm editor={editor} editing={editing} headings={[t("subscriptions.alert.new"), t("subscriptions.alert.change")]}>
          <SelectField<Condition> label={t("subscriptions.alert.condition")} value={editing.watch.condition}
            onChange={(condition) => watch({ condition })}
            options={CONDITIONS.map((condition) => ({ value: condition, label: t(`subscriptions.alert.conditions.${condition}`) }))} />
          {editing.watch.condition !== "has_rows" && (
            <>
              <TextField label={t("subscriptions.alert.column")} value={editing.watch.value_column} maxLength={200} required
                onChange={(value_column) => watch({ value_column })} hint={t("subscriptions.alert.columnHint")} />
              <TextField label={editing.watch.condition === "changes_by" ? t("subscriptions.alert.percent") : t("subscriptions.alert.threshold")}
                type="number" step="any" value={editing.watch.threshold} required onChange={(threshold) => watch({ threshold })} />
            </>
          )}
          <SelectField<Repeat> label={t("subscriptions.alert.repeat")} value={editing.watch.repeat} onChange={(repeat) => watch({ repeat })}
            options={[{ value: "every_time", label: t("subscriptions.alert.everyTime") }, { value: "once", label: t("subscriptions.alert.once") }]} />
          <SendingFields draft={editing.draft} set={set} creating={editing.id === null} />
        </SendingForm>
      ) : (
        <div>
          <Button variant="primary" onClick={() => start({ id: null, draft: newSendingDraft(user.email),
            watch: { condition: "has_rows", value_column: "", threshold: "", repeat: "every_time" } })}>
            {t("subscriptions.alert.new")}
          </Button>
        </div>
      )}
    </>
  );
}
