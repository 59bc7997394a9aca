// The viewer's filters: values typed here go to the URL when applied, so the link reproduces the view.
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import type { SavedFilter } from "./dashboardDraft";
import { PREVIOUS_PERIOD } from "./comparison";
import { DateRangeFilter } from "./DateRangeFilter";
import { RELATIVE_DATES } from "./filterState";
import { OneOfFilter, type FilterValuesSource } from "./OneOfFilter";
import { NO_SEGMENT, SegmentFilter } from "../segments/SegmentFilter";
import styles from "./DashboardPage.module.css";

interface Props {
  dashboardId: number;
  filters: SavedFilter[];
  values: Record<string, string>;
  onApply: (values: Record<string, string>) => void;
  /** A shared page's way to one-of values (through its link or token, never the session). */
  valuesSource?: FilterValuesSource;
}

const FIXED = "fixed";

export function FilterBar({ dashboardId, filters, values, onApply, valuesSource }: Props) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState(values);
  const [lastApplied, setLastApplied] = useState(values);
  if (lastApplied !== values) {
    // The URL changed (back button, a pasted link): show its values.
    setLastApplied(values);
    setTyped(values);
  }
  if (filters.length === 0) return null;
  const set = (id: string, value: string) => setTyped((old) => ({ ...old, [id]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(typed);
  }

  return (
    <form className={styles.filters} aria-label={t("dashboards.filters")} onSubmit={submit}>
      {filters.map((item) => {
        const id = String(item.filter_id);
        const value = typed[id] ?? "";
        const label = item.required ? t("dashboards.requiredFilter", { name: item.name }) : item.name;
        if (item.type === "date_range") {
          const compareKey = `cmp.${id}`;
          return (
            <div key={id} className={styles.dateFilter}>
              <DateRangeFilter label={label} name={item.name} value={value} onChange={(next) => set(id, next)} />
              {!valuesSource && (
                <label className={styles.check}>
                  <input type="checkbox" checked={typed[compareKey] === PREVIOUS_PERIOD} disabled={!value}
                    onChange={(event) => set(compareKey, event.target.checked ? PREVIOUS_PERIOD : NO_SEGMENT)} />
                  {t("dashboards.compareWithPrevious", { name: item.name })}
                </label>
              )}
            </div>
          );
        }
        if (item.type === "one_of") {
          return <OneOfFilter key={id} source={valuesSource} dashboardId={dashboardId} filterId={item.filter_id} label={label} name={item.name}
            value={value} onChange={(next) => set(id, next)} />;
        }
        if (item.type === "segment") {
          const compareKey = `cmp.${id}`;
          return (
            <div key={id} className={styles.dateFilter}>
              <SegmentFilter label={label} value={value} onChange={(next) => set(id, next)} listed={!valuesSource} />
              {!valuesSource && (
                <SegmentFilter label={t("dashboards.compareWith", { name: item.name })} value={typed[compareKey] ?? NO_SEGMENT}
                  none={t("dashboards.noComparison")} onChange={(next) => set(compareKey, next)} />
              )}
            </div>
          );
        }
        if (item.type !== "date") {
          return <TextField key={id} label={label} value={value} onChange={(next) => set(id, next)}
            type={item.type === "number" ? "number" : "text"} step="any" />;
        }
        const relative = (RELATIVE_DATES as readonly string[]).includes(value);
        return (
          <div key={id} className={styles.dateFilter}>
            <SelectField label={label} value={value === "" ? "" : relative ? value : FIXED}
              options={[{ value: "", label: t("dashboards.anyDate") },
                ...RELATIVE_DATES.map((choice) => ({ value: choice, label: t(`dashboards.date.${choice}`) })),
                { value: FIXED, label: t("dashboards.date.fixed") }]}
              onChange={(next) => set(id, next === FIXED ? new Date().toISOString().slice(0, 10) : next)} />
            {value !== "" && !relative && (
              <TextField label={t("dashboards.day", { name: item.name })} type="date" value={value} onChange={(next) => set(id, next)} />
            )}
          </div>
        );
      })}
      <Button type="submit" variant="primary">{t("dashboards.applyFilters")}</Button>
    </form>
  );
}
