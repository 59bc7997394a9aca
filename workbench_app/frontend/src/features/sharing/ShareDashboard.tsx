// "Share" on a dashboard: the members-only link (the dashboard's own address with its filters: a
// member who may view the folder opens it under their own rights), and public links, made by
// people who may change the dashboard while the installation allows it, each with the filters
// visitors may set and whether they may download it as PDF, shown once, revocable at once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { OneTimeSecret } from "../admin/OneTimeSecret";
import type { SavedFilter } from "../dashboards/dashboardDraft";
import styles from "./Sharing.module.css";
import { publicLinksQuery } from "./sharingQueries";

export function ShareDashboard({ dashboardId, filters }: { dashboardId: number; filters: SavedFilter[] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t("sharing.share")}</Button>
      {open && <ShareDialog dashboardId={dashboardId} filters={filters} onClose={() => setOpen(false)} />}
    </>
  );
}

function ShareDialog({ dashboardId, filters, onClose }: { dashboardId: number; filters: SavedFilter[]; onClose: () => void }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const [allowed, setAllowed] = useState<string[]>([]);
  const [allowPdf, setAllowPdf] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const path = { dashboard_id: dashboardId };
  const links = useQuery(publicLinksQuery(dashboardId));
  const create = useMutation({
    mutationFn: () => data(api.POST("/dashboards/{dashboard_id}/public-links", { params: { path }, body: { allowed_filters: allowed, allow_pdf: allowPdf } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: publicLinksQuery(dashboardId).queryKey }),
  });
  const revoke = useMutation({
    mutationFn: (linkId: number) => data(api.DELETE("/dashboards/{dashboard_id}/public-links/{link_id}", {
      params: { path: { ...path, link_id: linkId } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: publicLinksQuery(dashboardId).queryKey }),
  });
  const membersLink = `${window.location.origin}${window.location.pathname}${window.location.search}`;
  const names = new Map(filters.map((item) => [item.name, item]));

  return (
    <dialog ref={ref} className={styles.dialog} aria-labelledby="share-title" onCancel={onClose}>
      <h2 id="share-title">{t("sharing.title")}</h2>
      <section className={styles.panel} aria-labelledby="share-members">
        <h3 id="share-members">{t("sharing.membersLink")}</h3>
        <p className={styles.muted}>{t("sharing.membersHint")}</p>
        <code className={styles.link} data-testid="members-link">{membersLink}</code>
        <div className={styles.actions}>
          <Button onClick={() => void navigator.clipboard.writeText(membersLink).then(() => setCopied(true))}>{t("sharing.copyMembersLink")}</Button>
          <span role="status" aria-live="polite">{copied ? t("sharing.copied") : ""}</span>
        </div>
      </section>
      <section className={styles.panel} aria-labelledby="share-public">
        <h3 id="share-public">{t("sharing.publicLinks")}</h3>
        {links.error ? <p className={styles.muted}>{t("sharing.publicEditorsOnly")}</p>
          : !links.data ? <p role="status">{t("common.loading")}</p>
          : !links.data.public_sharing ? <p className={styles.muted}>{t("sharing.publicOff")}</p>
          : (
            <>
              <p className={styles.muted}>{t("sharing.publicHint")}</p>
              {filters.length > 0 && (
                <fieldset className={styles.checks}>
                  <legend>{t("sharing.allowedFilters")}</legend>
                  {filters.map((item) => (
                    <label key={item.filter_id}>
                      <input type="checkbox" checked={allowed.includes(item.name)}
                        onChange={(event) => setAllowed((old) => event.target.checked ? [...old, item.name] : old.filter((name) => name !== item.name))} />
                      {" "}{item.name}
                    </label>
                  ))}
                </fieldset>
              )}
              <label>
                <input type="checkbox" checked={allowPdf} onChange={(event) => setAllowPdf(event.target.checked)} />
                {" "}{t("sharing.allowPdf")}
              </label>
              <div className={styles.actions}>
                <Button variant="primary" onClick={() => create.mutate()} disabled={create.isPending}>{t("sharing.createPublicLink")}</Button>
              </div>
              <ErrorMessage error={create.error ?? revoke.error} />
              {create.data && <OneTimeSecret label={t("sharing.publicLinkOnce")} value={`${window.location.origin}${create.data.path}`} />}
              {links.data.links.length > 0 && (
                <table className={styles.table}>
                  <caption>{t("sharing.existingLinks")}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t("sharing.created")}</th>
                      <th scope="col">{t("sharing.allowedFilters")}</th>
                      <th scope="col">{t("sharing.pdf")}</th>
                      <th scope="col">{t("sharing.state")}</th>
                      <th scope="col">{t("sharing.actions")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {links.data.links.map((link) => (
                      <tr key={link.link_id}>
                        <td>{formatDateTime(link.created_at)}</td>
                        <td>{link.allowed_filters.filter((name) => names.has(name)).join(", ") || t("sharing.none")}</td>
                        <td>{link.allow_pdf ? t("sharing.pdfOffered") : t("sharing.pdfNotOffered")}</td>
                        <td>{link.revoked_at ? t("sharing.revoked") : t("sharing.active")}</td>
                        <td>
                          {!link.revoked_at && (
                            <Button variant="danger" onClick={() => revoke.mutate(link.link_id)}
                              aria-label={t("sharing.revokeNamed", { created: formatDateTime(link.created_at) })}>{t("sharing.revoke")}</Button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          )}
      </section>
      <div className={styles.actions}>
        <Button onClick={onClose}>{t("sharing.close")}</Button>
      </div>
    </dialog>
  );
}
