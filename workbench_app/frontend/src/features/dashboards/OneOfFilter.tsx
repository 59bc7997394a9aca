// A one-of filter: the values of its column as the viewer may read them (the server runs the
// lookup under the viewer's rights: their row filters apply), searchable, at most 200 shown. A shared
// page (public link, embed) passes `source`: its own way to the values, under the share's rights.
import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import { filterValuesKey } from "./dashboardQueries";
import { listValue, listValues } from "./filterState";
import styles from "./DashboardPage.module.css";

export type FilterValues = components["schemas"]["FilterValues"];

/** Where a shared page's one-of filters read their values; `key` changes with the link or token. */
export interface FilterValuesSource {
  key: string;
  load: (filterId: number, search: string | undefined) => Promise<FilterValues>;
}

interface Props {
  source?: FilterValuesSource;
  dashboardId: number;
  filterId: number;
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
}

export function OneOfFilter({ source, dashboardId, filterId, label, name, value, onChange }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const searched = useDeferredValue(search.trim());
  const offered = useQuery({
    queryKey: filterValuesKey(dashboardId, filterId, searched, source?.key ?? null),
    queryFn: (): Promise<FilterValues> => source ? source.load(filterId, searched || undefined)
      : data(api.GET("/dashboards/{dashboard_id}/filters/{filter_id}/values", {
        params: { path: { dashboard_id: dashboardId, filter_id: filterId }, query: searched ? { search: searched } : {} },
      })),
    staleTime: 60_000,
  });
  const chosen = listValues(value);
  // Chosen values stay listed (and can be unticked) even when the search hides them.
  const shown = [...chosen, ...(offered.data?.values ?? []).map(String).filter((one) => !chosen.includes(one))];
  const toggle = (one: string, on: boolean) => onChange(listValue(on ? [...chosen, one] : chosen.filter((v) => v !== one)));
  return (
    <fieldset className={styles.oneOf}>
      <legend>{label}</legend>
      <TextField label={t("dashboards.searchValues", { name })} type="search" value={search} onChange={setSearch} maxLength={200} />
      <ErrorMessage error={offered.error} />
      <ul className={styles.oneOfList} aria-label={t("dashboards.valuesOf", { name })}>
        {shown.map((one) => (
          <li key={one}>
            <label className={styles.check}>
              <input type="checkbox" checked={chosen.includes(one)} onChange={(event) => toggle(one, event.target.checked)} />
              {one}
            </label>
          </li>
        ))}
      </ul>
      {offered.data?.truncated && <p className={styles.hint}>{t("dashboards.moreValues")}</p>}
      {offered.data && shown.length === 0 && <p className={styles.hint}>{t("dashboards.noValues")}</p>}
    </fieldset>
  );
}
