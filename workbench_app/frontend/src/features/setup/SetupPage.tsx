// First-run setup: while the workbench has no administrator, the one-time link that
// `analytics up` prints opens this page to create one (the server checks the link every time).
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { api, ApiError, data } from "../../api/client";
import { useSessionOpening } from "../../app/session";
import { LANGUAGE_NAMES, LANGUAGES, pickLanguage, type Language } from "../../i18n/catalogues";
import { useLanguage } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "../sign-in/SignInPage.module.css";
import { setupLinkQuery } from "./setupQueries";

export default function SetupPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [locale, setLocale] = useState<Language>(pickLanguage(...navigator.languages));
  const { open, error, busy } = useSessionOpening();
  useLanguage(locale);
  const link = useQuery(setupLinkQuery(token));
  const refusal = link.error instanceof ApiError ? link.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    void open(() => data(api.POST("/setup", { body: { token, email, password, display_name: name, locale } })));
  }

  const field = error instanceof ApiError ? error.field : undefined;
  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1>{t("setup.title")}</h1>
        {link.isPending && <p role="status">{t("common.loading")}</p>}
        {refusal?.code === "setup_done" && (
          <p>{t("setup.done")} <Link to="/sign-in">{t("signIn.submit")}</Link></p>
        )}
        {refusal && refusal.code !== "setup_done" && <ErrorMessage error={refusal} />}
        {link.error && !refusal && <ErrorMessage error={link.error} onRetry={() => void link.refetch()} />}
        {link.isSuccess && (
          <form onSubmit={submit} className={styles.form} aria-labelledby="setup-lead">
            <p id="setup-lead" className={styles.lead}>{t("setup.lead")}</p>
            <TextField label={t("signIn.email")} type="email" autoComplete="username" value={email} onChange={setEmail}
              required autoFocus error={field === "email" ? (error as ApiError).message : undefined} />
            <TextField label={t("signIn.password")} type="password" autoComplete="new-password" value={password}
              onChange={setPassword} required minLength={10} hint={t("setup.passwordHint")}
              error={field === "password" ? (error as ApiError).message : undefined} />
            <TextField label={t("setup.name")} value={name} onChange={setName} autoComplete="name" maxLength={200} />
            <SelectField label={t("account.language")} value={locale}
              options={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
              onChange={setLocale} />
            {!field && <ErrorMessage error={error} />}
            <Button type="submit" variant="primary" disabled={busy}>{t("setup.submit")}</Button>
          </form>
        )}
      </div>
    </main>
  );
}
