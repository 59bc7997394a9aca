// Saved segments: the conditions on visits that dashboards (a filter of type "segment") and
// builder questions filter by. Saved in the person's folder; the server checks every condition and
// the right to edit, and answers its refusal in the person's language.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import { ValuesField } from "../../ui/ValuesField";
import styles from "../dashboards/DashboardPage.module.css";
import { describe, emptyForm, fromSegment, MAX_VALUES, toConditions, type SegmentForm } from "./segmentForm";
import { SEGMENTS_KEY, segmentsQuery, type Segment } from "./segmentQueries";

type ListPart = "channels" | "countries" | "devices";
// Each list condition and the hint of its values.
const LISTS: [ListPart, string][] = [
  ["channels", "segments.listHint"], ["countries", "segments.countriesHint"], ["devices", "segments.devicesHint"],
];

export default function SegmentsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const listed = useQuery(segmentsQuery());
  const [form, setForm] = useState<SegmentForm>(emptyForm);
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Segment | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  type TextPart = Exclude<keyof SegmentForm, ListPart>;
  const set = (field: TextPart) => (value: string) => setForm((old) => ({ ...old, [field]: value }));

  const save = useMutation({
    mutationFn: () => {
      const body = { name: form.name.trim(), description: form.description, conditions: toConditions(form) };
      return editing === null
        ? data(api.POST("/segments", { body }))
        : data(api.PATCH("/segments/{segment_id}", { params: { path: { segment_id: editing } }, body }));
    },
    onSuccess: async (saved) => {
      setNotice(t("segments.saved", { name: saved.name }));
      setEditing(null);
      setForm(emptyForm());
      await queryClient.invalidateQueries({ queryKey: SEGMENTS_KEY });
    },
  });
  const remove = useMutation({
    mutationFn: (segment: Segment) => data(api.DELETE("/segments/{segment_id}", { params: { path: { segment_id: segment.segment_id } } })),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: SEGMENTS_KEY });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    save.mutate();
  }

  const label = (key: string) => t(`segments.${key}`);
  return (
    <div className={styles.page}>
      <PageHeader title={t("segments.title")} />
      <p>{t("segments.intro")}</p>
      <ErrorMessage error={listed.error} />
      {listed.data?.length === 0 && <p>{t("segments.none")}</p>}
      <ul className={styles.list} aria-label={t("segments.listLabel")}>
        {(listed.data ?? []).map((segment) => (
          <li key={segment.segment_id}>
            <span><strong>{segment.name}</strong> {describe(segment.conditions, label)}</span>
            <Button variant="ghost" aria-label={t("segments.editNamed", { name: segment.name })} onClick={() => {
              setEditing(segment.segment_id); setForm(fromSegment(segment)); setNotice(null); save.reset();
            }}>{t("segments.edit")}</Button>
            <Button variant="ghost" aria-label={t("segments.deleteNamed", { name: segment.name })}
              onClick={() => { remove.reset(); setDeleting(segment); }}>{t("segments.delete")}</Button>
          </li>
        ))}
      </ul>
      <form className={styles.filterEditor} onSubmit={submit} aria-labelledby="segment-form-title">
        <h2 id="segment-form-title">{editing === null ? t("segments.new") : t("segments.editing", { name: form.name })}</h2>
        <TextField label={t("segments.name")} value={form.name} onChange={set("name")} maxLength={200} required />
        <TextField label={t("segments.description")} value={form.description} onChange={set("description")} maxLength={5000} />
        <fieldset>
          <legend>{t("segments.conditions")}</legend>
          {LISTS.map(([part, hint]) => (
            <ValuesField key={part} label={label(part)} values={form[part]} maxValues={MAX_VALUES}
              onChange={(values) => setForm((old) => ({ ...old, [part]: values }))}
              hint={`${t("segments.valuesHint")} ${t(hint)}`} listLabel={t("segments.chosen", { field: label(part) })}
              removeLabel={(value) => t("segments.removeValue", { value, field: label(part) })}
              fullMessage={t("segments.valuesFull", { max: MAX_VALUES })} />
          ))}
          <TextField label={label("landingPage")} hint={t("segments.landingPageHint")} value={form.landingPage}
            onChange={set("landingPage")} maxLength={500} />
          <TextField label={label("goal")} value={form.goal} onChange={set("goal")} maxLength={200} />
          <TextField label={label("event")} value={form.event} onChange={set("event")} maxLength={200} />
          <TextField label={t("segments.propertyKey")} value={form.propertyKey} onChange={set("propertyKey")} maxLength={128}
            disabled={!form.event.trim()} />
          <TextField label={t("segments.propertyValue")} value={form.propertyValue} onChange={set("propertyValue")} maxLength={500}
            disabled={!form.event.trim() || !form.propertyKey.trim()} />
        </fieldset>
        <ErrorMessage error={save.error} />
        {notice && <p role="status">{notice}</p>}
        <Button type="submit" variant="primary" disabled={save.isPending}>{t("segments.save")}</Button>
        {editing !== null && (
          <Button onClick={() => { setEditing(null); setForm(emptyForm()); save.reset(); }}>{t("segments.cancel")}</Button>
        )}
      </form>
      {deleting && (
        <ConfirmDialog title={t("segments.confirmDelete", { name: deleting.name })} confirmLabel={t("segments.delete")} danger
          onConfirm={() => remove.mutate(deleting)} onCancel={() => setDeleting(null)}>
          <ErrorMessage error={remove.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
