// The mail server in the Settings screen: host, port, security, username, password, From address,
// and a test message to oneself. The password is write-only: the server says "set" or "not set".
// A server set here replaces the environment's ANALYTICS_SMTP_* one whole; "Use the environment's"
// forgets it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { mailSettingsQuery } from "../subscriptions/subscriptionQueries";
import styles from "./Admin.module.css";

type MailSettings = components["schemas"]["MailServerSettings"];
type Security = MailSettings["security"];
interface Draft { host: string; port: string; security: Security; username: string; password: string; from_address: string }

const toDraft = (settings: MailSettings): Draft => ({
  host: settings.host ?? "", port: settings.port === null ? "" : String(settings.port), security: settings.security,
  username: settings.username ?? "", password: "", from_address: settings.from_address ?? "",
});

export function MailServerSettings() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery(mailSettingsQuery());
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data && draft === null) setDraft(toDraft(settings.data));
  }, [settings.data, draft]);
  const saved = (answer: MailSettings) => {
    queryClient.setQueryData(mailSettingsQuery().queryKey, answer);
    setDraft(toDraft(answer));
  };
  const save = useMutation({
    mutationFn: (body: Draft) => data(api.PATCH("/settings/mail", { body: {
      host: body.host || null, port: body.port ? Number(body.port) : null, security: body.security,
      username: body.username || null, from_address: body.from_address || null,
      // Sent only when typed: an empty field keeps the password that is set (without a username, none is kept).
      ...(body.password ? { password: body.password } : body.username ? {} : { password: null }),
    } })),
    onSuccess: saved,
  });
  const reset = useMutation({ mutationFn: () => data(api.DELETE("/settings/mail")), onSuccess: saved });
  const test = useMutation({ mutationFn: () => data(api.POST("/settings/mail/test")) });
  if (!draft || !settings.data) return <ErrorMessage error={settings.error} />;
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });
  const current = settings.data;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (draft) save.mutate(draft);
  }

  return (
    <form className={styles.panel} aria-labelledby="settings-mail" onSubmit={submit}>
      <h2 id="settings-mail">{t("admin.mail.title")}</h2>
      <p role="status">{t(current.enabled ? "admin.mail.on" : "admin.mail.off")} {t(`admin.mail.source.${current.source}`)}</p>
      <div className={styles.grid}>
        <TextField label={t("admin.mail.host")} value={draft.host} maxLength={253} placeholder="smtp.example.org"
          onChange={(host) => set({ host })} />
        <SelectField<Security> label={t("admin.mail.security")} value={draft.security} onChange={(security) => set({ security })}
          options={(["starttls", "tls", "none"] as const).map((value) => ({ value, label: t(`admin.mail.securities.${value}`) }))} />
        <TextField label={t("admin.mail.port")} type="number" min={1} max={65535} value={draft.port}
          onChange={(port) => set({ port })} hint={t("admin.mail.portHint")} />
        <TextField label={t("admin.mail.from")} type="email" value={draft.from_address} maxLength={254}
          onChange={(from_address) => set({ from_address })} />
        <TextField label={t("admin.mail.username")} value={draft.username} maxLength={254} autoComplete="off"
          onChange={(username) => set({ username })} />
        <TextField label={t("admin.mail.password")} type="password" value={draft.password} maxLength={1000}
          autoComplete="new-password" onChange={(password) => set({ password })}
          hint={current.password_set ? t("admin.mail.passwordSet") : t("admin.mail.passwordNotSet")} />
      </div>
      <p className={styles.muted}>{t("admin.mail.hint")}</p>
      <ErrorMessage error={save.error ?? reset.error ?? test.error} />
      <div className={styles.actions}>
        {current.source === "settings" && <Button onClick={() => reset.mutate()} disabled={reset.isPending}>{t("admin.mail.useEnvironment")}</Button>}
        <Button onClick={() => { save.reset(); test.mutate(); }} disabled={test.isPending || !current.enabled}>{t("admin.mail.test")}</Button>
        <Button type="submit" variant="primary" disabled={save.isPending}>{t("common.save")}</Button>
      </div>
      <p role="status" aria-live="polite">
        {test.isPending ? t("admin.mail.testing") : test.data ? t("admin.mail.testSent", { address: test.data.sent_to })
          : save.isSuccess || reset.isSuccess ? t("admin.saved") : ""}
      </p>
    </form>
  );
}
