// People (administrators): everyone with their role and state; invite a person (a one-time link
// to set their password), then edit them in the panel below.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, ApiError, data } from "../../api/client";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import { AccountFields, type AccountValues } from "./AccountFields";
import { peopleQuery, settingsQuery } from "./adminQueries";
import styles from "./Admin.module.css";
import { OneTimeSecret } from "./OneTimeSecret";
import { PersonEditor } from "./PersonEditor";

export default function PeoplePage() {
  const { t } = useTranslation();
  const [inviting, setInviting] = useState(false);
  const [selected, setSelected] = useState<number | null>(null);
  const people = useQuery(peopleQuery());
  return (
    <div className={styles.page}>
      <PageHeader title={t("admin.people.title")}>
        <Button variant="primary" onClick={() => setInviting(true)}>{t("admin.people.invite")}</Button>
      </PageHeader>
      <ErrorMessage error={people.error} />
      {inviting && <InviteForm onClose={() => setInviting(false)} />}
      {selected !== null && <PersonEditor userId={selected} onClose={() => setSelected(null)} />}
      <table className={styles.table}>
        <caption className={styles.caption}>{t("admin.people.title")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("admin.people.email")}</th>
            <th scope="col">{t("admin.people.displayName")}</th>
            <th scope="col">{t("admin.people.role")}</th>
            <th scope="col">{t("admin.people.state")}</th>
            <th scope="col">{t("admin.people.lastSignIn")}</th>
            <th scope="col"><span className={styles.visuallyHidden}>{t("admin.actions")}</span></th>
          </tr>
        </thead>
        <tbody>
          {(people.data ?? []).map((person) => (
            <tr key={person.user_id}>
              <th scope="row">{person.email}</th>
              <td>{person.display_name}</td>
              <td>{person.is_admin ? t("admin.people.administrator") : t("admin.people.member")}</td>
              <td>{person.is_active ? t("admin.people.active") : t("admin.people.inactive")}</td>
              <td>{person.last_login_at ? formatDateTime(person.last_login_at) : "—"}</td>
              <td>
                <Button onClick={() => setSelected(person.user_id)}
                  aria-label={t("admin.people.editNamed", { email: person.email })}>{t("admin.edit")}</Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function InviteForm({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [account, setAccount] = useState<AccountValues>({ displayName: "", locale: "en", isAdmin: false });
  // New accounts start in the workbench's default language (Settings).
  const settings = useQuery(settingsQuery());
  const defaultLocale = settings.data?.default_locale;
  useEffect(() => {
    if (defaultLocale) setAccount((current) => ({ ...current, locale: defaultLocale }));
  }, [defaultLocale]);
  const invite = useMutation({
    mutationFn: async () => {
      const user = await data(api.POST("/users", { body: {
        email: email.trim(), display_name: account.displayName, locale: account.locale, is_admin: account.isAdmin } }));
      const link = await data(api.POST("/users/{user_id}/password-link", {
        params: { path: { user_id: user.user_id } }, body: { purpose: "invite" } }));
      return window.location.origin + link.path;
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: peopleQuery().queryKey }),
  });
  const field = invite.error instanceof ApiError ? invite.error.field : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate();
  }

  if (invite.data) {
    return (
      <section className={styles.panel} aria-labelledby="invite-title">
        <h2 id="invite-title">{t("admin.people.invited", { email: email.trim() })}</h2>
        <OneTimeSecret label={t("admin.people.inviteLink")} value={invite.data} />
        <div className={styles.actions}><Button onClick={onClose}>{t("admin.close")}</Button></div>
      </section>
    );
  }
  return (
    <form className={styles.panel} onSubmit={submit} aria-labelledby="invite-title">
      <h2 id="invite-title">{t("admin.people.invite")}</h2>
      <div className={styles.grid}>
        <TextField label={t("admin.people.email")} type="email" value={email} onChange={setEmail} required maxLength={400}
          error={field === "email" ? invite.error?.message : undefined} />
        <AccountFields values={account} onChange={setAccount} />
      </div>
      <ErrorMessage error={field ? null : invite.error} />
      <div className={styles.actions}>
        <Button onClick={onClose}>{t("common.cancel")}</Button>
        <Button type="submit" variant="primary" disabled={invite.isPending}>{t("admin.people.createAndLink")}</Button>
      </div>
    </form>
  );
}
