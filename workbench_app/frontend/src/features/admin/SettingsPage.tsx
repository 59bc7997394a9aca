// Settings of the whole workbench (administrators): the language of new accounts, and the
// sign-in methods there are, with single sign-on's configuration, sharing, and the mail server.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { LANGUAGE_NAMES, LANGUAGES, type Language } from "../../i18n/catalogues";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { SelectField } from "../../ui/SelectField";
import { SharingSettings } from "../sharing/SharingSettings";
import styles from "./Admin.module.css";
import { settingsQuery } from "./adminQueries";
import { MailServerSettings } from "./MailServerSettings";
import { SingleSignOnSettings } from "./SingleSignOnSettings";

export default function SettingsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery(settingsQuery());
  const update = useMutation({
    mutationFn: (locale: Language) => data(api.PATCH("/settings", { body: { default_locale: locale } })),
    onSuccess: (answer) => queryClient.setQueryData(settingsQuery().queryKey, answer),
  });
  const current = settings.data;
  return (
    <div className={styles.page}>
      <PageHeader title={t("admin.settings.title")} />
      <ErrorMessage error={settings.error ?? update.error} />
      {current && (
        <>
          <section className={styles.panel} aria-labelledby="settings-language">
            <h2 id="settings-language">{t("admin.settings.language")}</h2>
            <SelectField label={t("admin.settings.defaultLanguage")} value={current.default_locale}
              onChange={(locale) => update.mutate(locale)}
              options={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))} />
            <p className={styles.muted}>{t("admin.settings.defaultLanguageHint")}</p>
            <p role="status" aria-live="polite">{update.isSuccess ? t("admin.saved") : ""}</p>
          </section>
          <section className={styles.panel} aria-labelledby="settings-sign-in">
            <h2 id="settings-sign-in">{t("admin.settings.signIn")}</h2>
            <ul>
              <li>{t("admin.settings.password")}: {current.sign_in_methods.password ? t("admin.settings.on") : t("admin.settings.off")}</li>
              <li>{t("admin.settings.oidc")}: {current.sign_in_methods.oidc ? t("admin.settings.on") : t("admin.settings.off")}</li>
            </ul>
          </section>
          <SingleSignOnSettings />
          <SharingSettings settings={current} queryKey={settingsQuery().queryKey} />
          <MailServerSettings />
        </>
      )}
    </div>
  );
}
