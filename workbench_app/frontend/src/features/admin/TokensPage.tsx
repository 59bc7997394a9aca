// API tokens: one's own (create: the secret is shown once, with a copy button; last use; revoke);
// administrators also see and revoke everyone's.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { useSession } from "../../app/session";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";
import { TOKENS_KEY, tokensQuery } from "./adminQueries";
import { OneTimeSecret } from "./OneTimeSecret";

type Token = components["schemas"]["Token"];

export default function TokensPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const mine = useQuery(tokensQuery(false));
  const everyone = useQuery({ ...tokensQuery(true), enabled: user.is_admin });
  const changed = () => void queryClient.invalidateQueries({ queryKey: TOKENS_KEY });
  const create = useMutation({
    mutationFn: () => data(api.POST("/tokens", { body: { name: name.trim() } })),
    onSuccess: () => { setName(""); changed(); },
  });
  const revoke = useMutation({
    mutationFn: (tokenId: number) => data(api.DELETE("/tokens/{token_id}", { params: { path: { token_id: tokenId } } })),
    onSuccess: changed,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <div className={styles.page}>
      <PageHeader title={t("tokens.title")} />
      <form className={styles.panel} onSubmit={submit} aria-labelledby="new-token-title">
        <h2 id="new-token-title">{t("tokens.create")}</h2>
        <TextField label={t("tokens.name")} value={name} onChange={setName} maxLength={200} hint={t("tokens.nameHint")} />
        <ErrorMessage error={create.error} />
        <div className={styles.actions}>
          <Button type="submit" variant="primary" disabled={create.isPending}>{t("tokens.create")}</Button>
        </div>
        {create.data && <OneTimeSecret label={t("tokens.secretOnce")} value={create.data.secret} />}
      </form>
      <ErrorMessage error={mine.error ?? everyone.error ?? revoke.error} />
      <TokenTable caption={t("tokens.mine")} tokens={mine.data ?? []} onRevoke={(id) => revoke.mutate(id)} />
      {user.is_admin && (
        <TokenTable caption={t("tokens.everyone")} tokens={everyone.data ?? []} withOwner onRevoke={(id) => revoke.mutate(id)} />
      )}
    </div>
  );
}

function TokenTable({ caption, tokens, withOwner, onRevoke }: {
  caption: string; tokens: Token[]; withOwner?: boolean; onRevoke: (tokenId: number) => void;
}) {
  const { t } = useTranslation();
  return (
    <table className={styles.table}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t("tokens.name")}</th>
          {withOwner && <th scope="col">{t("tokens.owner")}</th>}
          <th scope="col">{t("tokens.created")}</th>
          <th scope="col">{t("tokens.lastUsed")}</th>
          <th scope="col">{t("tokens.state")}</th>
          <th scope="col"><span className={styles.visuallyHidden}>{t("admin.actions")}</span></th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => {
          const label = token.name || `#${token.token_id}`;
          return (
            <tr key={token.token_id}>
              <th scope="row">{label}</th>
              {withOwner && <td>{token.owner_email ?? ""}</td>}
              <td>{formatDateTime(token.created_at)}</td>
              <td>{token.last_used_at ? formatDateTime(token.last_used_at) : t("tokens.never")}</td>
              <td>{token.state === "active" ? t("tokens.active") : t("tokens.revoked")}</td>
              <td>
                {token.state === "active" && (
                  <Button variant="danger" onClick={() => onRevoke(token.token_id)}
                    aria-label={t("tokens.revokeNamed", { name: label, owner: token.owner_email ?? "" })}>{t("tokens.revoke")}</Button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
