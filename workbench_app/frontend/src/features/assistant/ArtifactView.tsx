// What a tool run showed: the SQL the assistant ran (openable in the SQL editor) and the chart it
// drew, with the same chart component as questions, which can be saved as a question. A reopened
// conversation runs the chart's SQL again, under the person's rights of today.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Suspense, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { api, data } from "../../api/client";
import { QUESTIONS_KEY } from "../browse/browseQueries";
import { SaveQuestionDialog } from "../browse/SaveQuestionDialog";
import { LazyChartView as ChartView } from "../charts/lazyChartView";
import { CHART_KINDS, type ChartKind, type ChartSpec } from "../charts/chartSpec";
import { resultColumns } from "../results/types";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import styles from "./AssistantPage.module.css";
import { artifactRunQuery } from "./assistantQueries";
import type { Artifact, ShownResult } from "./types";

function chartSpec(artifact: Artifact): ChartSpec {
  const kind = (CHART_KINDS as readonly string[]).includes(artifact.chart?.kind ?? "") ? artifact.chart!.kind as ChartKind : "bar";
  return { kind, x: artifact.chart?.x, y: artifact.chart?.y ?? [] };
}

function ChartArtifact({ artifact, live }: { artifact: Artifact; live?: ShownResult | undefined }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const rerun = useQuery({ ...artifactRunQuery(artifact.sql), enabled: live === undefined });
  const result = live ?? rerun.data;
  const spec = useMemo(() => chartSpec(artifact), [artifact]);
  const columns = useMemo(() => (result ? resultColumns(result) : []), [result]);
  const title = artifact.title || t("assistant.chart");

  async function save(name: string, folderId: number | undefined) {
    await data(api.POST("/questions", { body: { name, folder_id: folderId, kind: "sql", sql: artifact.sql,
      visualization: { ...spec } } }));
    setSaving(false);
    setSaved(name);
    await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
  }

  return (
    <figure className={styles.artifact}>
      <figcaption className={styles.artifactTitle}>{title}</figcaption>
      <ErrorMessage error={rerun.error} />
      {result && (
        <Suspense fallback={<p role="status">{t("common.loading")}</p>}>
          <ChartView spec={spec} columns={columns} rows={(result.rows ?? []) as unknown[][]} title={title} />
        </Suspense>
      )}
      <div className={styles.artifactActions}>
        <Link to={`/sql?sql=${encodeURIComponent(artifact.sql)}`}>{t("assistant.openInEditor")}</Link>
        <Button onClick={() => setSaving(true)}>{t("assistant.saveAsQuestion")}</Button>
      </div>
      {saved && <p role="status">{t("assistant.saved", { name: saved })}</p>}
      {saving && <SaveQuestionDialog initialName={artifact.title ?? ""} onSave={save} onCancel={() => setSaving(false)} />}
    </figure>
  );
}

export function ArtifactView({ artifact, live }: { artifact: Artifact; live?: ShownResult | undefined }) {
  const { t } = useTranslation();
  if (artifact.kind === "chart" && !artifact.error) return <ChartArtifact artifact={artifact} live={live} />;
  return (
    <figure className={styles.artifact}>
      <figcaption className={styles.artifactTitle}>{t("assistant.ranSql")}</figcaption>
      <pre className={styles.sql}><code>{artifact.sql}</code></pre>
      {artifact.error && <p className={styles.refused}>{artifact.error.message}</p>}
      <div className={styles.artifactActions}>
        <Link to={`/sql?sql=${encodeURIComponent(artifact.sql)}`}>{t("assistant.openInEditor")}</Link>
      </div>
    </figure>
  );
}
