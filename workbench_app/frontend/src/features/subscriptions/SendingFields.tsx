// The fields a subscription and an alert share: name, schedule, and where it goes.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import fieldStyles from "../../ui/Field.module.css";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import adminStyles from "../admin/Admin.module.css";
import { RecipientPicker } from "./RecipientPicker";
import { timeZones, type Channel, type Every, type SendingDraft, type WebhookFormat } from "./sendingDraft";

const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour));
const MINUTES = ["0", "15", "30", "45"];

export function SendingFields({ draft, set, creating }: {
  draft: SendingDraft; set: (changes: Partial<SendingDraft>) => void; creating: boolean;
}) {
  const { t } = useTranslation();
  const recipientsId = useId();
  const minutes = MINUTES.includes(draft.minute) ? MINUTES : [...MINUTES, draft.minute];
  return (
    <>
      <TextField label={t("subscriptions.name")} value={draft.name} maxLength={100} onChange={(name) => set({ name })} />
      <fieldset className={adminStyles.grid}>
        <legend>{t("subscriptions.schedule.label")}</legend>
        <SelectField<Every> label={t("subscriptions.schedule.every")} value={draft.every} onChange={(every) => set({ every })}
          options={(["day", "week", "month"] as const).map((every) => ({ value: every, label: t(`subscriptions.schedule.each.${every}`) }))} />
        {draft.every === "week" && (
          <SelectField label={t("subscriptions.schedule.weekday")} value={draft.weekday} onChange={(weekday) => set({ weekday })}
            options={["0", "1", "2", "3", "4", "5", "6"].map((day) => ({ value: day, label: t(`subscriptions.weekday.${day}`) }))} />
        )}
        {draft.every === "month" && (
          <TextField label={t("subscriptions.schedule.day")} type="number" min={1} max={31} value={draft.day}
            onChange={(day) => set({ day })} hint={t("subscriptions.schedule.dayHint")} />
        )}
        <SelectField label={t("subscriptions.schedule.hour")} value={draft.hour} onChange={(hour) => set({ hour })}
          options={HOURS.map((hour) => ({ value: hour, label: hour.padStart(2, "0") }))} />
        <SelectField label={t("subscriptions.schedule.minute")} value={draft.minute} onChange={(minute) => set({ minute })}
          options={minutes.map((minute) => ({ value: minute, label: minute.padStart(2, "0") }))} />
        <SelectField label={t("subscriptions.schedule.timezone")} value={draft.timezone} onChange={(timezone) => set({ timezone })}
          options={timeZones(draft.timezone).map((zone) => ({ value: zone, label: zone }))} />
      </fieldset>
      {creating && (
        <SelectField<Channel> label={t("subscriptions.channel")} value={draft.channel} onChange={(channel) => set({ channel })}
          options={[{ value: "email", label: t("subscriptions.email") }, { value: "webhook", label: t("subscriptions.webhook") }]} />
      )}
      {draft.channel === "email" ? (
        <div className={fieldStyles.field}>
          <label htmlFor={recipientsId}>{t("subscriptions.recipients")}</label>
          <textarea id={recipientsId} className={fieldStyles.input} rows={3} value={draft.recipients}
            aria-describedby={`${recipientsId}-hint`} onChange={(event) => set({ recipients: event.target.value })} />
          <span id={`${recipientsId}-hint`} className={fieldStyles.hint}>{t("subscriptions.recipientsHint")}</span>
          <RecipientPicker recipients={draft.recipients}
            onAdd={(email) => set({ recipients: draft.recipients.trim() ? `${draft.recipients.trim()}\n${email}` : email })} />
        </div>
      ) : (
        <>
          <TextField label={t("subscriptions.webhookUrl")} type="url" value={draft.webhook_url} maxLength={2000}
            placeholder="https://hooks.example.org/analytics" onChange={(webhook_url) => set({ webhook_url })}
            hint={t("subscriptions.webhookHint")} />
          <SelectField<WebhookFormat> label={t("subscriptions.webhookFormat")} value={draft.webhook_format}
            onChange={(webhook_format) => set({ webhook_format })}
            options={[{ value: "json", label: "JSON" }, { value: "slack", label: "Slack" }]} />
        </>
      )}
    </>
  );
}
