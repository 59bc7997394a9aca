// A dashboard's segment filter: one of the saved segments the viewer may see, or every visit. A
// shared page (public link, embed) has no list of segments: it shows the one its address names.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { SelectField } from "../../ui/SelectField";
import { segmentsQuery } from "./segmentQueries";

interface Props {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** False on a shared page: the viewer has no session to list segments with. */
  listed?: boolean;
  /** A first choice before "every visit" (the comparison's "no comparison", value NO_SEGMENT). */
  none?: string | undefined;
}

export const NO_SEGMENT = "none";

export function SegmentFilter({ label, value, onChange, listed = true, none }: Props) {
  const { t } = useTranslation();
  const segments = useQuery({ ...segmentsQuery(), enabled: listed, retry: false });
  const options = [...(none ? [{ value: NO_SEGMENT, label: none }] : []), { value: "", label: t("segments.everyVisit") },
    ...(segments.data ?? []).map((segment) => ({ value: String(segment.segment_id), label: segment.name }))];
  if (value && value !== NO_SEGMENT && !options.some((option) => option.value === value)) {
    options.push({ value, label: t("segments.numbered", { id: value }) });
  }
  return <SelectField label={label} value={value} options={options} onChange={onChange} />;
}

/** How a segment filter's value is named on a compared chart. */
export function segmentLabel(value: string, segments: readonly { segment_id: number; name: string }[] | undefined,
  t: (key: string, options?: Record<string, unknown>) => string): string {
  if (!value) return t("segments.everyVisit");
  return segments?.find((segment) => String(segment.segment_id) === value)?.name ?? t("segments.numbered", { id: value });
}
