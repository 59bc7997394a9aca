// Single sign-on (OpenID Connect) in the Settings screen: the provider, the claims mapping, account
// creation and password sign-in. The client secret is write-only: the server says "set" or "not set".
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components, paths } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import fieldStyles from "../../ui/Field.module.css";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";
import { settingsQuery, signOnSettingsQuery } from "./adminQueries";
import { parseLines, toLines } from "./claimMapping";

type SsoSettings = components["schemas"]["SingleSignOnSettings"];
type SsoChange = paths["/settings/sso"]["patch"]["requestBody"]["content"]["application/json"];

interface Draft {
  display_name: string; issuer: string; client_id: string; client_secret: string; scopes: string;
  email_claim: string; name_claim: string; groups_claim: string; attributes: string; groups: string;
  groups_by_name: boolean; create_accounts: boolean; password_sign_in: boolean; break_glass_email: string;
}

function toDraft(settings: SsoSettings): Draft {
  return {
    display_name: settings.display_name, issuer: settings.issuer ?? "", client_id: settings.client_id ?? "",
    client_secret: "", scopes: settings.scopes, email_claim: settings.email_claim, name_claim: settings.name_claim,
    groups_claim: settings.groups_claim, attributes: toLines(settings.attribute_claims),
    groups: toLines(settings.group_mapping), groups_by_name: settings.groups_by_name,
    create_accounts: settings.create_accounts, password_sign_in: settings.password_sign_in,
    break_glass_email: settings.break_glass_email ?? "",
  };
}

function MappingField({ label, hint, value, onChange, badLines }: {
  label: string; hint: string; value: string; onChange: (value: string) => void; badLines: number[];
}) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className={fieldStyles.field}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} className={fieldStyles.input} rows={3} value={value} aria-describedby={`${id}-hint`}
        aria-invalid={badLines.length ? true : undefined} onChange={(event) => onChange(event.target.value)} />
      <span id={`${id}-hint`} className={fieldStyles.hint}>{hint}</span>
      {badLines.length > 0 && (
        <span className={fieldStyles.error}>{t("admin.sso.badLines", { lines: badLines.join(", ") })}</span>)}
    </div>
  );
}

function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label className={styles.check}>
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      {label}
    </label>
  );
}

export function SingleSignOnSettings() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery(signOnSettingsQuery());
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data && draft === null) setDraft(toDraft(settings.data));
  }, [settings.data, draft]);
  const save = useMutation({
    mutationFn: (body: SsoChange) =>
      data(api.PATCH("/settings/sso", { body })),
    onSuccess: (answer) => {
      queryClient.setQueryData(signOnSettingsQuery().queryKey, answer);
      void queryClient.invalidateQueries({ queryKey: settingsQuery().queryKey, exact: true });
      setDraft(toDraft(answer));
    },
  });
  if (!draft || !settings.data) return <ErrorMessage error={settings.error} />;
  const attributes = parseLines(draft.attributes);
  const groups = parseLines(draft.groups);
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!draft || attributes.badLines.length || groups.badLines.length) return;
    save.mutate({
      display_name: draft.display_name || null, issuer: draft.issuer || null, client_id: draft.client_id || null,
      scopes: draft.scopes || null, email_claim: draft.email_claim, name_claim: draft.name_claim,
      groups_claim: draft.groups_claim, attribute_claims: attributes.mapping, group_mapping: groups.mapping,
      groups_by_name: draft.groups_by_name, create_accounts: draft.create_accounts,
      password_sign_in: draft.password_sign_in, break_glass_email: draft.break_glass_email || null,
      // Sent only when typed: an empty field keeps the secret that is set.
      ...(draft.client_secret ? { client_secret: draft.client_secret } : {}),
    });
  }

  return (
    <section className={styles.panel} aria-labelledby="settings-sso">
      <h2 id="settings-sso">{t("admin.sso.title")}</h2>
      <p role="status">{settings.data.enabled ? t("admin.sso.enabled") : t("admin.sso.disabled")}</p>
      <form onSubmit={submit} className={styles.panel}>
        <div className={styles.grid}>
          <TextField label={t("admin.sso.displayName")} value={draft.display_name} maxLength={500}
            onChange={(display_name) => set({ display_name })} hint={t("admin.sso.displayNameHint")} />
          <TextField label={t("admin.sso.issuer")} value={draft.issuer} type="url" maxLength={2000}
            placeholder="https://login.example.org/realms/staff" onChange={(issuer) => set({ issuer })} />
          <TextField label={t("admin.sso.clientId")} value={draft.client_id} maxLength={500}
            onChange={(client_id) => set({ client_id })} />
          <TextField label={t("admin.sso.clientSecret")} value={draft.client_secret} type="password" maxLength={2000}
            autoComplete="new-password" onChange={(client_secret) => set({ client_secret })}
            hint={settings.data.client_secret_set ? t("admin.sso.secretSet") : t("admin.sso.secretNotSet")} />
          <TextField label={t("admin.sso.scopes")} value={draft.scopes} maxLength={500}
            onChange={(scopes) => set({ scopes })} />
        </div>
        <h3>{t("admin.sso.claims")}</h3>
        <div className={styles.grid}>
          <TextField label={t("admin.sso.emailClaim")} value={draft.email_claim} required maxLength={200}
            onChange={(email_claim) => set({ email_claim })} />
          <TextField label={t("admin.sso.nameClaim")} value={draft.name_claim} required maxLength={200}
            onChange={(name_claim) => set({ name_claim })} />
          <TextField label={t("admin.sso.groupsClaim")} value={draft.groups_claim} required maxLength={200}
            onChange={(groups_claim) => set({ groups_claim })} />
        </div>
        <MappingField label={t("admin.sso.attributeClaims")} hint={t("admin.sso.attributeClaimsHint")}
          value={draft.attributes} onChange={(value) => set({ attributes: value })} badLines={attributes.badLines} />
        <MappingField label={t("admin.sso.groupMapping")} hint={t("admin.sso.groupMappingHint")}
          value={draft.groups} onChange={(value) => set({ groups: value })} badLines={groups.badLines} />
        <Check label={t("admin.sso.groupsByName")} checked={draft.groups_by_name}
          onChange={(groups_by_name) => set({ groups_by_name })} />
        <Check label={t("admin.sso.createAccounts")} checked={draft.create_accounts}
          onChange={(create_accounts) => set({ create_accounts })} />
        <Check label={t("admin.sso.passwordSignIn")} checked={draft.password_sign_in}
          onChange={(password_sign_in) => set({ password_sign_in })} />
        <TextField label={t("admin.sso.breakGlass")} value={draft.break_glass_email} type="email" maxLength={400}
          onChange={(break_glass_email) => set({ break_glass_email })} hint={t("admin.sso.breakGlassHint")} />
        <ErrorMessage error={save.error} />
        <div className={styles.actions}>
          <Button type="submit" variant="primary" disabled={save.isPending}>{t("admin.sso.save")}</Button>
        </div>
        <p role="status" aria-live="polite">{save.isSuccess ? t("admin.saved") : ""}</p>
      </form>
    </section>
  );
}
