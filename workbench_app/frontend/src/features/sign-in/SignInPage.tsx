import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { api, ApiError, data, setCsrfToken } from "../../api/client";
import { SESSION_KEY } from "../../app/session";
import { pickLanguage } from "../../i18n/catalogues";
import { useLanguage } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import styles from "./SignInPage.module.css";
import { SingleSignOnButton, SingleSignOnError } from "./SingleSignOnButton";

/** Only same-site paths are followed after sign-in (never another origin). */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/sign-in") ? next : "/";
}

export function SignInPage() {
  const { t } = useTranslation();
  useLanguage(pickLanguage(...navigator.languages));
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await data(api.POST("/session", { body: { email, password } }));
      setCsrfToken(session.csrf_token);
      queryClient.setQueryData(SESSION_KEY, session);
      void navigate(safeNext(params.get("next")), { replace: true });
    } catch (caught) {
      setError(caught);
      if (caught instanceof ApiError) setPassword("");
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className={styles.page}>
      <form className={styles.card} onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{t("signIn.title")}</h1>
        <p className={styles.lead}>{t("signIn.lead")}</p>
        {params.get("next") && !error && !params.get("sso_error") && <p role="status">{t("signIn.expired")}</p>}
        <SingleSignOnError code={params.get("sso_error")} />
        <SingleSignOnButton next={safeNext(params.get("next"))} />
        <TextField label={t("signIn.email")} type="email" autoComplete="username" value={email}
          onChange={setEmail} required autoFocus />
        <TextField label={t("signIn.password")} type="password" autoComplete="current-password" value={password}
          onChange={setPassword} required />
        <ErrorMessage error={error} />
        <Button type="submit" variant="primary" disabled={busy}>{busy ? t("signIn.busy") : t("signIn.submit")}</Button>
      </form>
    </main>
  );
}
