// The fields a person's account shares between the invitation and the person's panel.
import { useTranslation } from "react-i18next";
import { LANGUAGE_NAMES, LANGUAGES, type Language } from "../../i18n/catalogues";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";

export interface AccountValues { displayName: string; locale: Language; isAdmin: boolean }

export function AccountFields({ values, onChange }: { values: AccountValues; onChange: (values: AccountValues) => void }) {
  const { t } = useTranslation();
  return (
    <>
      <TextField label={t("admin.people.displayName")} value={values.displayName} maxLength={200}
        onChange={(displayName) => onChange({ ...values, displayName })} />
      <SelectField label={t("admin.people.language")} value={values.locale} onChange={(locale) => onChange({ ...values, locale })}
        options={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))} />
      <label className={styles.check}>
        <input type="checkbox" checked={values.isAdmin} onChange={(event) => onChange({ ...values, isAdmin: event.target.checked })} />
        {t("admin.people.administrator")}
      </label>
    </>
  );
}
