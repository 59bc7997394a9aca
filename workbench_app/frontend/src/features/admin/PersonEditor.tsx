// One person: name, language, administrator flag, attributes (the {{user.<name>}} of row rules),
// groups, a password reset link, and deactivation (their sessions and tokens stop at once).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import { AccountFields, type AccountValues } from "./AccountFields";
import { groupsQuery, peopleQuery, personQuery } from "./adminQueries";
import styles from "./Admin.module.css";
import { toAttributes, toRows, type AttributeRow } from "./attributes";
import { OneTimeSecret } from "./OneTimeSecret";

type User = components["schemas"]["User"];

export function PersonEditor({ userId, onClose }: { userId: number; onClose: () => void }) {
  const person = useQuery(personQuery(userId));
  if (!person.data) return <ErrorMessage error={person.error} />;
  return <PersonForm key={userId} user={person.data} onClose={onClose} />;
}

function PersonForm({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const path = { params: { path: { user_id: user.user_id } } };
  const [account, setAccount] = useState<AccountValues>({
    displayName: user.display_name ?? "", locale: user.locale ?? "en", isAdmin: user.is_admin });
  const [rows, setRows] = useState<AttributeRow[]>(() => toRows(user.attributes ?? {}));
  const [link, setLink] = useState<string | null>(null);
  const [confirmDeactivate, setConfirmDeactivate] = useState(false);
  const [saved, setSaved] = useState(false);
  // The box being changed, shown from the click's own render until the server's list has it (a
  // controlled checkbox that waited for the server would seem not to take the click).
  const [toggling, setToggling] = useState<{ groupId: number; member: boolean } | null>(null);
  const groups = useQuery(groupsQuery());
  const refresh = () => void queryClient.invalidateQueries({ queryKey: peopleQuery().queryKey });

  const save = useMutation({
    mutationFn: async () => {
      await data(api.PATCH("/users/{user_id}", { ...path, body: { display_name: account.displayName, locale: account.locale, is_admin: account.isAdmin } }));
      await data(api.PUT("/users/{user_id}/attributes", { ...path, body: { attributes: toAttributes(rows) } }));
    },
    onMutate: () => setSaved(false),
    onSuccess: () => { setSaved(true); refresh(); },
  });
  const setActive = useMutation({
    mutationFn: (active: boolean) => data(api.PATCH("/users/{user_id}", { ...path, body: { is_active: active } })),
    onSuccess: () => { setConfirmDeactivate(false); refresh(); },
  });
  const reset = useMutation({
    mutationFn: () => data(api.POST("/users/{user_id}/password-link", { ...path, body: { purpose: "reset" } })),
    onSuccess: (answer) => setLink(window.location.origin + answer.path),
  });
  const membership = useMutation({
    mutationFn: ({ groupId, member }: { groupId: number; member: boolean }) => {
      const where = { params: { path: { group_id: groupId, user_id: user.user_id } } };
      return member ? data(api.PUT("/groups/{group_id}/members/{user_id}", where))
        : data(api.DELETE("/groups/{group_id}/members/{user_id}", where));
    },
    // The server's list then replaces the shown box: with the change, or without it if refused.
    onSettled: async () => {
      refresh();
      await queryClient.invalidateQueries({ queryKey: groupsQuery().queryKey });
      setToggling(null);
    },
  });
  const memberOf = new Set((groups.data ?? []).filter((g) => g.members.includes(user.user_id)).map((g) => g.group_id));

  return (
    <section className={styles.panel} aria-labelledby="person-title">
      <h2 id="person-title">{user.email}</h2>
      <p>{user.is_active === false ? t("admin.people.inactive") : t("admin.people.active")}</p>
      <div className={styles.grid}>
        <AccountFields values={account} onChange={setAccount} />
      </div>
      <fieldset className={styles.attributes}>
        <legend>{t("admin.people.attributes")}</legend>
        <p className={styles.muted}>{t("admin.people.attributesHint", { placeholder: "{{user.<name>}}" })}</p>
        {rows.map((row, index) => (
          <div key={index} className={styles.attributeRow}>
            <TextField label={t("admin.people.attributeName", { n: index + 1 })} value={row.name}
              onChange={(name) => setRows(rows.map((r, i) => (i === index ? { ...r, name } : r)))} />
            <TextField label={t("admin.people.attributeValue", { n: index + 1 })} value={row.value}
              onChange={(value) => setRows(rows.map((r, i) => (i === index ? { ...r, value } : r)))} />
            <Button onClick={() => setRows(rows.filter((_, i) => i !== index))}
              aria-label={t("admin.people.removeAttribute", { n: index + 1 })}>{t("admin.remove")}</Button>
          </div>
        ))}
        <div><Button onClick={() => setRows([...rows, { name: "", value: "" }])}>{t("admin.people.addAttribute")}</Button></div>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className={styles.actions}>
        <span role="status" aria-live="polite">{saved ? t("admin.saved") : ""}</span>
        <Button onClick={onClose}>{t("admin.close")}</Button>
        <Button variant="primary" onClick={() => save.mutate()} disabled={save.isPending}>{t("common.save")}</Button>
      </div>
      <fieldset className={styles.groups}>
        <legend>{t("admin.people.groups")}</legend>
        {(groups.data ?? []).map((group) => (
          <label key={group.group_id} className={styles.check}>
            <input type="checkbox" disabled={membership.isPending}
              checked={toggling?.groupId === group.group_id ? toggling.member : memberOf.has(group.group_id)}
              onChange={(event) => {
                const change = { groupId: group.group_id, member: event.target.checked };
                setToggling(change);
                membership.mutate(change);
              }} />
            {group.name}
          </label>
        ))}
        {groups.data?.length === 0 && <p>{t("admin.people.noGroups")}</p>}
      </fieldset>
      <ErrorMessage error={membership.error ?? groups.error ?? reset.error ?? setActive.error} />
      <div className={styles.actions}>
        <Button onClick={() => reset.mutate()}>{t("admin.people.resetPassword")}</Button>
        {user.is_active === false
          ? <Button onClick={() => setActive.mutate(true)}>{t("admin.people.reactivate")}</Button>
          : <Button variant="danger" onClick={() => setConfirmDeactivate(true)}>{t("admin.people.deactivate")}</Button>}
      </div>
      {link && <OneTimeSecret label={t("admin.people.resetLink")} value={link} />}
      {confirmDeactivate && (
        <ConfirmDialog title={t("admin.people.deactivateTitle", { email: user.email })} danger
          confirmLabel={t("admin.people.deactivate")} onCancel={() => setConfirmDeactivate(false)}
          onConfirm={() => setActive.mutate(false)}>
          <p>{t("admin.people.deactivateText")}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
