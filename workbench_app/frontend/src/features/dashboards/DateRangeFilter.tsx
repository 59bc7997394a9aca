// A date range filter: a relative choice (last 7/30/90 days, this month, previous month) or a
// custom range from/to; the server resolves relative choices when a card runs.
import { useTranslation } from "react-i18next";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { rangeDays, RELATIVE_RANGES } from "./filterState";
import styles from "./DashboardPage.module.css";

const CUSTOM = "custom";

interface Props {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
}

export function DateRangeFilter({ label, name, value, onChange }: Props) {
  const { t } = useTranslation();
  const relative = (RELATIVE_RANGES as readonly string[]).includes(value);
  const [from, to] = rangeDays(value);
  function custom() {
    const today = new Date().toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    onChange(`${monthAgo}..${today}`);
  }
  return (
    <div className={styles.dateFilter}>
      <SelectField label={label} value={value === "" ? "" : relative ? value : CUSTOM}
        options={[{ value: "", label: t("dashboards.anyDate") },
          ...RELATIVE_RANGES.map((choice) => ({ value: choice, label: t(`dashboards.range.${choice}`) })),
          { value: CUSTOM, label: t("dashboards.range.custom") }]}
        onChange={(next) => (next === CUSTOM ? custom() : onChange(next))} />
      {value !== "" && !relative && (
        <>
          <TextField label={t("dashboards.rangeFrom", { name })} type="date" value={from} max={to || undefined}
            onChange={(next) => onChange(`${next}..${to}`)} />
          <TextField label={t("dashboards.rangeTo", { name })} type="date" value={to} min={from || undefined}
            onChange={(next) => onChange(`${from}..${next}`)} />
        </>
      )}
    </div>
  );
}
