// One source's form: the fields of its kind, "Test connection" before saving, then save.
// A saved password is never sent to the browser: the form says only whether one is set.
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, ApiError, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";
import { SOURCE_FIELDS, SOURCE_KINDS, toFormValues, toOptions, WITH_PASSWORD, type SourceKind } from "./sourceFields";

export type Source = components["schemas"]["Source"];
type ConnectionTest = components["schemas"]["ConnectionTest"];

export function SourceForm({ source, onSaved, onCancel }: {
  source: Source | null; onSaved: () => void; onCancel: () => void;
}) {
  const { t } = useTranslation();
  const editing = source !== null;
  const [kind, setKind] = useState<SourceKind>(source?.kind ?? "postgres");
  const [name, setName] = useState(source?.name ?? "");
  const [values, setValues] = useState(() => toFormValues(kind, source?.options ?? {}));
  const [password, setPassword] = useState("");
  const [clearPassword, setClearPassword] = useState(false);
  const [tested, setTested] = useState<ConnectionTest | null>(null);
  const options = () => toOptions(kind, values, editing);
  const secret = () => (WITH_PASSWORD.has(kind) && password ? { password } : {});

  const test = useMutation({
    mutationFn: () => (source
      ? data(api.POST("/sources/{source_id}/test", { params: { path: { source_id: source.source_id } },
        body: { options: options(), ...secret() } }))
      : data(api.POST("/sources/test", { body: { kind: kind as (typeof SOURCE_KINDS)[number], options: options(), ...secret() } }))),
    onMutate: () => setTested(null),
    onSuccess: setTested,
  });
  const save = useMutation({
    mutationFn: () => (source
      ? data(api.PATCH("/sources/{source_id}", { params: { path: { source_id: source.source_id } },
        body: { options: options(), ...secret(), ...(clearPassword ? { clear_password: true } : {}) } }))
      : data(api.POST("/sources", { body: { name: name.trim(), kind: kind as (typeof SOURCE_KINDS)[number],
        options: options(), ...secret() } }))),
    onSuccess: onSaved,
  });
  const refusedField = save.error instanceof ApiError ? save.error.field : undefined;

  function chooseKind(next: SourceKind) {
    setKind(next);
    setValues(toFormValues(next, {}));
    setTested(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form className={styles.panel} onSubmit={submit} aria-labelledby="source-form-title">
      <h2 id="source-form-title">{editing ? t("admin.sources.editTitle", { name: source.name }) : t("admin.sources.addTitle")}</h2>
      <div className={styles.grid}>
        {!editing && (
          <>
            <TextField label={t("admin.sources.name")} value={name} onChange={setName} required maxLength={63}
              hint={t("admin.sources.nameHint")} error={refusedField === "name" ? save.error?.message : undefined} />
            <SelectField label={t("admin.sources.kind")} value={kind} onChange={chooseKind}
              options={SOURCE_KINDS.map((k) => ({ value: k, label: t(`admin.sources.kindName.${k}`) }))} />
          </>
        )}
        {SOURCE_FIELDS[kind].map((field) => field.type === "protocol" ? (
          <SelectField key={field.key} label={t(`admin.sources.option.${field.key}`)} value={values[field.key] ?? ""}
            options={[{ value: "", label: t("admin.sources.default") }, { value: "https", label: "https" }, { value: "http", label: "http" }]}
            onChange={(value) => setValues({ ...values, [field.key]: value })} />
        ) : (
          <TextField key={field.key} label={t(`admin.sources.option.${field.key}`)} value={values[field.key] ?? ""}
            onChange={(value) => setValues({ ...values, [field.key]: value })} required={field.required}
            inputMode={field.type === "number" ? "numeric" : undefined}
            hint={field.type === "list" ? t("admin.sources.listHint") : undefined}
            error={refusedField === field.key ? save.error?.message : undefined} />
        ))}
        {WITH_PASSWORD.has(kind) && (
          <div>
            <TextField label={t("admin.sources.password")} type="password" autoComplete="new-password" value={password}
              onChange={setPassword} disabled={clearPassword}
              hint={editing ? (source.has_password ? t("admin.sources.passwordSet") : t("admin.sources.passwordNotSet")) : undefined}
              error={refusedField === "password" ? save.error?.message : undefined} />
            {editing && source.has_password && (
              <label className={styles.check}>
                <input type="checkbox" checked={clearPassword} onChange={(event) => setClearPassword(event.target.checked)} />
                {t("admin.sources.clearPassword")}
              </label>
            )}
          </div>
        )}
      </div>
      <div role="status" aria-live="polite" className={styles.testResult} data-testid="connection-test">
        {test.isPending && t("admin.sources.testing")}
        {tested?.ok && <span className={styles.success}>{t("admin.sources.testOk", { count: tested.tables ?? 0 })}</span>}
        {tested && !tested.ok && <span className={styles.failure}>{tested.error?.message}</span>}
      </div>
      <ErrorMessage error={test.error ?? (refusedField ? null : save.error)} />
      <div className={styles.actions}>
        <Button onClick={onCancel}>{t("common.cancel")}</Button>
        <Button onClick={() => test.mutate()} disabled={test.isPending}>{t("admin.sources.test")}</Button>
        <Button type="submit" variant="primary" disabled={save.isPending}>{t("common.save")}</Button>
      </div>
    </form>
  );
}
