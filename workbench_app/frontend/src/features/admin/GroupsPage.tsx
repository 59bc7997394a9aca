// Groups and data rules (administrators): per group, the catalogs it reads whole and its table
// rules (access, row filter, hidden and masked columns); "view as" to see a person's result.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";
import { groupPermissionsQuery, groupsQuery, sourcesQuery } from "./adminQueries";
import { RuleEditor, type RuleDraft } from "./RuleEditor";
import { ViewAsPanel } from "./ViewAsPanel";

export default function GroupsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<number | null>(null);
  const [name, setName] = useState("");
  const groups = useQuery(groupsQuery());
  const create = useMutation({
    mutationFn: () => data(api.POST("/groups", { body: { name: name.trim() } })),
    onSuccess: (group) => {
      setName("");
      setSelected((group as { group_id: number }).group_id);
      void queryClient.invalidateQueries({ queryKey: groupsQuery().queryKey });
    },
  });
  const current = (groups.data ?? []).find((group) => group.group_id === selected) ?? null;

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <div className={styles.page}>
      <PageHeader title={t("admin.groups.title")} />
      <ErrorMessage error={groups.error} />
      <div className={styles.columns}>
        <nav aria-label={t("admin.groups.title")}>
          <ul className={styles.list}>
            {(groups.data ?? []).map((group) => (
              <li key={group.group_id}>
                <Button variant="ghost" aria-current={group.group_id === selected ? "true" : undefined}
                  className={group.group_id === selected ? styles.selected : undefined}
                  onClick={() => setSelected(group.group_id)}>{group.name}</Button>
              </li>
            ))}
          </ul>
          <form onSubmit={submit} className={styles.attributes}>
            <TextField label={t("admin.groups.newName")} value={name} onChange={setName} maxLength={200} />
            <ErrorMessage error={create.error} />
            <Button type="submit" disabled={!name.trim() || create.isPending}>{t("admin.groups.create")}</Button>
          </form>
        </nav>
        <div className={styles.page}>
          {current
            ? <GroupPanel key={current.group_id} groupId={current.group_id} name={current.name}
                onDeleted={() => { setSelected(null); void queryClient.invalidateQueries({ queryKey: groupsQuery().queryKey }); }} />
            : <p>{t("admin.groups.pick")}</p>}
        </div>
      </div>
      <ViewAsPanel />
    </div>
  );
}

function GroupPanel({ groupId, name, onDeleted }: { groupId: number; name: string; onDeleted: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const path = { params: { path: { group_id: groupId } } };
  const [editing, setEditing] = useState<RuleDraft | "new" | null>(null);
  const [deleting, setDeleting] = useState(false);
  const permissions = useQuery(groupPermissionsQuery(groupId));
  const sources = useQuery(sourcesQuery());
  const changed = () => void queryClient.invalidateQueries({ queryKey: groupPermissionsQuery(groupId).queryKey });
  const setCatalogs = useMutation({
    mutationFn: (catalogs: string[]) => data(api.PUT("/groups/{group_id}/catalogs", { ...path, body: { catalogs } })),
    onSuccess: changed,
  });
  const deleteRule = useMutation({
    mutationFn: (ruleId: number) => data(api.DELETE("/groups/{group_id}/rules/{rule_id}", {
      params: { path: { group_id: groupId, rule_id: ruleId } } })),
    onSuccess: changed,
  });
  const deleteGroup = useMutation({
    mutationFn: () => data(api.DELETE("/groups/{group_id}", path)),
    onSuccess: onDeleted,
  });
  const granted = new Set(permissions.data?.catalogs ?? []);

  return (
    <section className={styles.panel} aria-labelledby="group-title">
      <h2 id="group-title">{name}</h2>
      <fieldset className={styles.groups}>
        <legend>{t("admin.groups.catalogs")}</legend>
        {(sources.data ?? []).map((source) => (
          <label key={source.name} className={styles.check}>
            <input type="checkbox" checked={granted.has(source.name)} disabled={setCatalogs.isPending || !permissions.data}
              onChange={(event) => setCatalogs.mutate(event.target.checked ? [...granted, source.name]
                : [...granted].filter((catalog) => catalog !== source.name))} />
            {source.name}
          </label>
        ))}
      </fieldset>
      <p className={styles.muted}>{t("admin.groups.catalogsHint")}</p>
      <h3>{t("admin.groups.rules")}</h3>
      <table className={styles.table}>
        <caption className={styles.caption}>{t("admin.groups.rules")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("admin.rules.table")}</th>
            <th scope="col">{t("admin.rules.access")}</th>
            <th scope="col">{t("admin.rules.rowFilter")}</th>
            <th scope="col">{t("admin.rules.hidden")}</th>
            <th scope="col">{t("admin.rules.mask")}</th>
            <th scope="col"><span className={styles.visuallyHidden}>{t("admin.actions")}</span></th>
          </tr>
        </thead>
        <tbody>
          {(permissions.data?.table_rules ?? []).map((rule) => {
            const table = `${rule.catalog}.${rule.schema}.${rule.table}`;
            return (
              <tr key={rule.rule_id}>
                <th scope="row">{table}</th>
                <td>{rule.access ? t("admin.rules.allowed") : t("admin.rules.denied")}</td>
                <td><code>{rule.row_filter ?? ""}</code></td>
                <td>{rule.hidden_columns.join(", ")}</td>
                <td>{Object.entries(rule.masked_columns).map(([column, mask]) => `${column} (${mask.kind})`).join(", ")}</td>
                <td className={styles.rowActions}>
                  <Button onClick={() => setEditing(rule)} aria-label={t("admin.rules.editNamed", { table })}>{t("admin.edit")}</Button>
                  <Button variant="danger" onClick={() => deleteRule.mutate(rule.rule_id)}
                    aria-label={t("admin.rules.removeNamed", { table })}>{t("admin.remove")}</Button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ErrorMessage error={permissions.error ?? setCatalogs.error ?? deleteRule.error ?? deleteGroup.error} />
      {editing ? (
        <RuleEditor key={editing === "new" ? "new" : `${editing.catalog}.${editing.schema}.${editing.table}`} groupId={groupId}
          initial={editing === "new" ? null : editing} onCancel={() => setEditing(null)}
          onSaved={() => { setEditing(null); changed(); }} />
      ) : (
        <div className={styles.actions}>
          <Button variant="danger" onClick={() => setDeleting(true)}>{t("admin.groups.delete")}</Button>
          <Button variant="primary" onClick={() => setEditing("new")}>{t("admin.rules.add")}</Button>
        </div>
      )}
      {deleting && (
        <ConfirmDialog title={t("admin.groups.deleteTitle", { name })} danger confirmLabel={t("admin.groups.delete")}
          onCancel={() => setDeleting(false)} onConfirm={() => deleteGroup.mutate()}>
          <p>{t("admin.groups.deleteText")}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
