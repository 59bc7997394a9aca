// Embedding secrets (administrators): each signs the embed tokens of one customer's backend,
// bound to a group whose rules decide what its tokens read, with the host origins that may frame
// the embed. The secret is shown once; several may be live at once for rotation; revoking is at once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { OneTimeSecret } from "../admin/OneTimeSecret";
import adminStyles from "../admin/Admin.module.css";
import { groupsQuery } from "../admin/adminQueries";
import { embeddingSecretsQuery } from "./sharingQueries";

export default function EmbeddingSecretsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [groupId, setGroupId] = useState("");
  const [origins, setOrigins] = useState("");
  const secrets = useQuery(embeddingSecretsQuery());
  const groups = useQuery(groupsQuery());
  const changed = () => void queryClient.invalidateQueries({ queryKey: embeddingSecretsQuery().queryKey });
  const create = useMutation({
    mutationFn: () => data(api.POST("/embedding-secrets", { body: {
      name: name.trim(), group_id: Number(groupId),
      allowed_origins: origins.split(/\s+/).filter(Boolean) } })),
    onSuccess: () => { setName(""); setOrigins(""); changed(); },
  });
  const revoke = useMutation({
    mutationFn: (secretId: number) => data(api.DELETE("/embedding-secrets/{secret_id}", { params: { path: { secret_id: secretId } } })),
    onSuccess: changed,
  });
  const groupList = groups.data ?? [];

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <div className={adminStyles.page}>
      <PageHeader title={t("embedding.title")} />
      <p className={adminStyles.muted}>{t("embedding.intro")}</p>
      <p className={adminStyles.muted}>{t("embedding.pdfHint")}</p>
      <form className={adminStyles.panel} onSubmit={submit} aria-labelledby="new-secret-title">
        <h2 id="new-secret-title">{t("embedding.create")}</h2>
        <TextField label={t("embedding.name")} value={name} onChange={setName} maxLength={200} required />
        <SelectField label={t("embedding.group")} value={groupId} onChange={setGroupId}
          options={[{ value: "", label: t("embedding.chooseGroup") },
            ...groupList.map((group) => ({ value: String(group.group_id), label: group.name }))]} />
        <TextField label={t("embedding.origins")} value={origins} onChange={setOrigins} hint={t("embedding.originsHint")} />
        <ErrorMessage error={create.error} />
        <div className={adminStyles.actions}>
          <Button type="submit" variant="primary" disabled={create.isPending || !groupId}>{t("embedding.create")}</Button>
        </div>
        {create.data && (
          <OneTimeSecret label={t("embedding.secretOnce", { kid: create.data.embedding_secret.kid })} value={create.data.secret} />
        )}
      </form>
      <ErrorMessage error={secrets.error ?? revoke.error} />
      <table className={adminStyles.table}>
        <caption>{t("embedding.secrets")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("embedding.name")}</th>
            <th scope="col">{t("embedding.kid")}</th>
            <th scope="col">{t("embedding.group")}</th>
            <th scope="col">{t("embedding.origins")}</th>
            <th scope="col">{t("embedding.created")}</th>
            <th scope="col">{t("embedding.state")}</th>
            <th scope="col">{t("embedding.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {(secrets.data ?? []).map((secret) => (
            <tr key={secret.secret_id}>
              <th scope="row">{secret.name}</th>
              <td><code>{secret.kid}</code></td>
              <td>{secret.group_name}</td>
              <td>{secret.allowed_origins.join(" ") || t("embedding.noOrigin")}</td>
              <td>{formatDateTime(secret.created_at)}</td>
              <td>{secret.revoked_at ? t("embedding.revoked") : t("embedding.active")}</td>
              <td>
                {!secret.revoked_at && (
                  <Button variant="danger" onClick={() => revoke.mutate(secret.secret_id)}
                    aria-label={t("embedding.revokeNamed", { name: secret.name })}>{t("embedding.revoke")}</Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
