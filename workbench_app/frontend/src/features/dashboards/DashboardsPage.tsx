// Every dashboard the person may view, a new one (in their personal folder unless they move it),
// and deletion (the server checks the right to edit its folder).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import { DASHBOARDS_KEY, dashboardsQuery, type ListedDashboard } from "./dashboardQueries";
import styles from "./DashboardPage.module.css";

type Listed = ListedDashboard;

export default function DashboardsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [deleting, setDeleting] = useState<Listed | null>(null);
  const listed = useQuery(dashboardsQuery());
  const create = useMutation({
    mutationFn: () => data(api.POST("/dashboards", { body: { name: name.trim() } })),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: DASHBOARDS_KEY });
      void navigate(`/dashboards/${created.dashboard_id}`);
    },
  });
  const remove = useMutation({
    mutationFn: async (dashboard: Listed) => data(api.DELETE("/dashboards/{dashboard_id}", { params: { path: { dashboard_id: dashboard.dashboard_id } } })),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: DASHBOARDS_KEY });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim()) create.mutate();
  }

  return (
    <div className={styles.page}>
      <PageHeader title={t("dashboards.title")} />
      <form className={styles.newDashboard} onSubmit={submit}>
        <TextField label={t("dashboards.newName")} value={name} onChange={setName} maxLength={200} required />
        <Button type="submit" variant="primary" disabled={create.isPending}>{t("dashboards.create")}</Button>
      </form>
      <ErrorMessage error={create.error ?? listed.error} />
      {listed.data?.length === 0 && <p>{t("dashboards.none")}</p>}
      <ul className={styles.list}>
        {(listed.data ?? []).map((dashboard) => (
          <li key={dashboard.dashboard_id}>
            <Link to={`/dashboards/${dashboard.dashboard_id}`}>{dashboard.name}</Link>
            <Button variant="ghost" onClick={() => { remove.reset(); setDeleting(dashboard); }}
              aria-label={t("dashboards.deleteNamed", { name: dashboard.name })}>{t("dashboards.delete")}</Button>
          </li>
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog title={t("dashboards.confirmDelete", { name: deleting.name })} confirmLabel={t("dashboards.delete")} danger
          onConfirm={() => remove.mutate(deleting)} onCancel={() => setDeleting(null)}>
          <ErrorMessage error={remove.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
