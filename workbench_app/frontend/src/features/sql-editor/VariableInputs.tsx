import { useTranslation } from "react-i18next";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { VARIABLE_TYPES, type VariableType, type VariableUse } from "./variables";
import styles from "./VariableInputs.module.css";

interface Props {
  variables: VariableUse[];
  types: Record<string, VariableType>;
  values: Record<string, string>;
  errors: Record<string, string>;
  onType: (name: string, type: VariableType) => void;
  onValue: (name: string, value: string) => void;
}

/** One typed input per {{variable}} of the statement, above the result. */
export function VariableInputs({ variables, types, values, errors, onType, onValue }: Props) {
  const { t } = useTranslation();
  if (variables.length === 0) return null;
  return (
    <fieldset className={styles.variables}>
      <legend>{t("sql.variables")}</legend>
      {variables.map(({ name, optional }) => {
        const type = types[name] ?? "text";
        return (
          <div key={name} className={styles.variable}>
            <TextField label={optional ? `${name} (${t("sql.optional")})` : name} value={values[name] ?? ""}
              onChange={(value) => onValue(name, value)} error={errors[name]}
              type={type === "date" ? "date" : "text"} inputMode={type === "number" ? "decimal" : undefined}
              hint={type === "list" ? t("sql.listHint") : undefined} />
            <SelectField label={t("sql.variableType", { name })} hideLabel value={type}
              options={VARIABLE_TYPES.map((kind) => ({ value: kind, label: t(`sql.type.${kind}`) }))}
              onChange={(kind) => onType(name, kind)} />
          </div>
        );
      })}
    </fieldset>
  );
}
