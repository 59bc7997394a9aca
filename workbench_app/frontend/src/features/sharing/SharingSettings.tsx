// The sharing part of the Settings screen: public links on or off for the installation, the
// longest lifetime of an embed token, how many requests a minute one public link answers, and
// whether subscriptions may go to addresses outside the accounts and to webhooks.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import adminStyles from "../admin/Admin.module.css";

type Settings = components["schemas"]["Settings"];

export function SharingSettings({ settings, queryKey }: { settings: Settings; queryKey: readonly unknown[] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [lifetime, setLifetime] = useState(String(settings.embed_max_lifetime_seconds));
  const [perMinute, setPerMinute] = useState(String(settings.public_link_requests_per_minute));
  const update = useMutation({
    mutationFn: (body: Partial<Pick<Settings, "public_sharing" | "external_recipients" | "embed_max_lifetime_seconds" | "public_link_requests_per_minute">>) =>
      data(api.PATCH("/settings", { body })),
    onSuccess: (answer) => queryClient.setQueryData(queryKey, answer),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate({ embed_max_lifetime_seconds: Number(lifetime), public_link_requests_per_minute: Number(perMinute) });
  }

  return (
    <form className={adminStyles.panel} aria-labelledby="settings-sharing" onSubmit={submit}>
      <h2 id="settings-sharing">{t("sharing.settings.title")}</h2>
      <label className={adminStyles.check}>
        <input type="checkbox" checked={settings.public_sharing}
          onChange={(event) => update.mutate({ public_sharing: event.target.checked })} />
        {t("sharing.settings.publicSharing")}
      </label>
      <p className={adminStyles.muted}>{t("sharing.settings.publicSharingHint")}</p>
      <label className={adminStyles.check}>
        <input type="checkbox" checked={settings.external_recipients}
          onChange={(event) => update.mutate({ external_recipients: event.target.checked })} />
        {t("sharing.settings.externalRecipients")}
      </label>
      <p className={adminStyles.muted}>{t("sharing.settings.externalRecipientsHint")}</p>
      <TextField label={t("sharing.settings.embedLifetime")} type="number" min={60} max={604800} value={lifetime}
        onChange={setLifetime} />
      <TextField label={t("sharing.settings.requestsPerMinute")} type="number" min={1} max={100000} value={perMinute}
        onChange={setPerMinute} />
      <ErrorMessage error={update.error} />
      <div className={adminStyles.actions}>
        <Button type="submit" variant="primary" disabled={update.isPending}>{t("common.save")}</Button>
        <span role="status" aria-live="polite">{update.isSuccess ? t("admin.saved") : ""}</span>
      </div>
    </form>
  );
}
