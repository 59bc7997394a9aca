// The screen the workbench opens on: a way to start, what is pinned for everyone, what the person
// opened or changed last, and for an administrator the next steps of a new installation.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { homeKey, homeQuery, itemPath, setPinned, type HomeItem, type NextStep } from "./homeQueries";
import styles from "./HomePage.module.css";

export default function HomePage() {
  const { t } = useTranslation();
  const home = useQuery(homeQuery());
  return (
    <div className={styles.page}>
      <PageHeader title={t("home.title")} />
      <ErrorMessage error={home.error} onRetry={() => void home.refetch()} />
      <section aria-labelledby="home-start" className={styles.section}>
        <h2 id="home-start">{t("home.start")}</h2>
        <p className={styles.actions}>
          <Link className={styles.action} to="/question/new">{t("home.newQuestion")}</Link>
          <Link className={styles.action} to="/sql">{t("home.newSql")}</Link>
          <Link className={styles.action} to="/browse">{t("home.browse")}</Link>
        </p>
      </section>
      {home.data?.next_steps && home.data.next_steps.some((step) => !step.done) && (
        <NextSteps steps={home.data.next_steps} collectorUrl={home.data.collector_url ?? null} />
      )}
      <section aria-labelledby="home-pinned" className={styles.section}>
        <h2 id="home-pinned">{t("home.pinned")}</h2>
        {home.data && home.data.pinned.length === 0 && <p className={styles.empty}>{t("home.noPins")}</p>}
        <ItemList items={home.data?.pinned ?? []} canUnpin={home.data?.can_pin ?? false} />
      </section>
      <section aria-labelledby="home-recent" className={styles.section}>
        <h2 id="home-recent">{t("home.recent")}</h2>
        {home.data && home.data.recent.length === 0 && <p className={styles.empty}>{t("home.noRecent")}</p>}
        <ItemList items={home.data?.recent ?? []} canUnpin={false} />
      </section>
    </div>
  );
}

function ItemList({ items, canUnpin }: { items: HomeItem[]; canUnpin: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const unpin = useMutation({
    mutationFn: (item: HomeItem) => setPinned(item.kind, item.id, false),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: homeKey }),
  });
  if (items.length === 0) return null;
  return (
    <>
      <ul className={styles.items}>
        {items.map((item) => (
          <li key={`${item.kind}-${item.id}`} className={styles.item}>
            <span className={styles.kind}>{t(`home.kind.${item.kind}`)}</span>
            <Link to={itemPath(item)}>{item.name}</Link>
            {item.description && <span className={styles.description}>{item.description}</span>}
            {canUnpin && (
              <Button variant="ghost" onClick={() => unpin.mutate(item)} disabled={unpin.isPending}
                aria-label={t("home.unpinNamed", { name: item.name })}>{t("home.unpin")}</Button>
            )}
          </li>
        ))}
      </ul>
      <ErrorMessage error={unpin.error} />
    </>
  );
}

// Where each step is done: a screen of the workbench, or the collector's own pages.
const STEP_TARGETS: Record<NextStep["step"], string> = {
  add_source: "/admin/sources",
  invite_people: "/admin/people",
  single_sign_on: "/admin/settings",
  collector_site: "/admin/sites/new",
};

function NextSteps({ steps, collectorUrl }: { steps: NextStep[]; collectorUrl: string | null }) {
  const { t } = useTranslation();
  const done = steps.filter((step) => step.done).length;
  return (
    <section aria-labelledby="home-next" className={styles.section}>
      <h2 id="home-next">{t("home.nextSteps")}</h2>
      <p className={styles.empty}>{t("home.stepsDone", { done, count: steps.length })}</p>
      <ol className={styles.steps}>
        {steps.map((step) => {
          const label = t(`home.step.${step.step}`);
          const target = STEP_TARGETS[step.step];
          return (
            <li key={step.step} className={step.done ? styles.done : undefined}>
              <span className={styles.tick} aria-hidden="true">{step.done ? "✓" : "○"}</span>
              {step.step === "collector_site"
                ? <a href={`${collectorUrl ?? ""}${target}`}>{label}</a>
                : <Link to={target}>{label}</Link>}
              <span className={styles.state}>{step.done ? t("home.stepDone") : t("home.stepToDo")}</span>
              <span className={styles.description}>{t(`home.stepHelp.${step.step}`)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
