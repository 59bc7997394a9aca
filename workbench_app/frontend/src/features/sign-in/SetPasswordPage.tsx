// The page of a one-time password link (an invitation or a reset from an administrator). The
// token travels in the fragment, so it reaches no server log; the server checks it every time.
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { api, ApiError, data } from "../../api/client";
import { useSessionOpening } from "../../app/session";
import { pickLanguage } from "../../i18n/catalogues";
import { useLanguage } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import styles from "./SignInPage.module.css";
import { passwordLinkQuery } from "./signInQueries";

export default function SetPasswordPage() {
  const { t } = useTranslation();
  const token = useLocation().hash.replace(/^#/, "");
  const [password, setPassword] = useState("");
  const { open, error, busy } = useSessionOpening();
  useLanguage(pickLanguage(...navigator.languages));
  const link = useQuery(passwordLinkQuery(token));

  function submit(event: FormEvent) {
    event.preventDefault();
    void open(() => data(api.POST("/password-link", { body: { token, password } })));
  }

  const field = error instanceof ApiError ? error.field : undefined;
  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1>{link.data?.purpose === "invite" ? t("setPassword.welcome") : t("setPassword.title")}</h1>
        {link.isPending && <p role="status">{t("common.loading")}</p>}
        <ErrorMessage error={link.error} />
        {link.isSuccess && (
          <form onSubmit={submit} className={styles.form} aria-labelledby="set-password-lead">
            <p id="set-password-lead" className={styles.lead}>{t("setPassword.lead", { email: link.data.email })}</p>
            <TextField label={t("signIn.password")} type="password" autoComplete="new-password" value={password}
              onChange={setPassword} required minLength={10} hint={t("setup.passwordHint")} autoFocus
              error={field === "password" ? (error as ApiError).message : undefined} />
            {!field && <ErrorMessage error={error} />}
            <Button type="submit" variant="primary" disabled={busy}>{t("setPassword.submit")}</Button>
          </form>
        )}
      </div>
    </main>
  );
}
