// The column of a card's result a filter restricts: picked from the columns of the card's question
// (GET /questions/<id>/columns, a run that keeps no row under the editor's own rights), or typed
// when the columns cannot be listed (a question that needs a value) or the one wanted is not there.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { questionColumnsQuery } from "../browse/browseQueries";

interface Props {
  questionId: number | undefined;
  filter: string;
  card: string;
  value: string;
  onChange: (column: string) => void;
}

// Option values: "" none chosen yet, TYPED to type a name, otherwise "=" and the column's name.
const TYPED = "typed";

export function LinkedColumnField({ questionId, filter, card, value, onChange }: Props) {
  const { t } = useTranslation();
  const [typing, setTyping] = useState(false);
  const columns = useQuery({
    ...questionColumnsQuery(questionId!),
    enabled: questionId !== undefined,
    retry: false,
  });
  const label = t("dashboards.linkColumnName", { filter, card });
  const names = columns.data ?? [];
  if (names.length === 0) {
    return <TextField label={label} value={value} maxLength={200} onChange={onChange}
      hint={columns.isError ? t("dashboards.columnsUnlisted") : undefined} />;
  }
  const typed = typing || (value !== "" && !names.includes(value));
  return (
    <>
      <SelectField label={label} value={typed ? TYPED : value ? `=${value}` : ""}
        options={[{ value: "", label: t("dashboards.chooseColumn") },
          ...names.map((name) => ({ value: `=${name}`, label: name })),
          { value: TYPED, label: t("dashboards.typeColumn") }]}
        onChange={(next) => {
          setTyping(next === TYPED);
          if (next !== TYPED) onChange(next.slice(1));
        }} />
      {typed && <TextField label={t("dashboards.linkColumnTyped", { filter, card })} value={value} maxLength={200} onChange={onChange} />}
    </>
  );
}
