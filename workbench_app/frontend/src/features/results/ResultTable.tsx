// A virtualised result table: only the rows in view are in the page, so 10,000 rows scroll as
// smoothly as 10. Values are rendered as text (React escapes them), never as HTML.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { formatNumber } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { ColumnResizer } from "./ColumnResizer";
import { sortRows, toCsv, toTsv, type SortDirection } from "./csv";
import styles from "./ResultTable.module.css";
import { resultColumns, type Result } from "./types";

const ROW_HEIGHT = 32;

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "∅";
  if (typeof value === "number") return formatNumber(value, { maximumFractionDigits: 6 });
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

interface Props {
  result: Result;
  fileName?: string;
  /** The whole result as CSV from the server (its export bound, under the person's rights); without
   *  it, the download holds the rows this page received. */
  fetchCsv?: () => Promise<Blob>;
}

export function ResultTable({ result, fileName = "result", fetchCsv }: Props) {
  const { t, i18n } = useTranslation();
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  // Widths the person set by dragging or with the keyboard; the others fit their content.
  const [widths, setWidths] = useState<Record<number, number>>({});
  const headers = useRef<(HTMLTableCellElement | null)[]>([]);
  const sized = (index: number) => {
    const width = widths[index];
    return width === undefined ? undefined : { width, minWidth: width, maxWidth: width };
  };
  const columns = resultColumns(result);
  const [sort, setSort] = useState<{ column: number; direction: SortDirection } | null>(null);
  const [copied, setCopied] = useState(false);
  const rows = useMemo(() => {
    const all = (result.rows ?? []) as unknown[][];
    return sort ? sortRows(all, sort.column, sort.direction, new Intl.Collator(i18n.language)) : all;
  }, [result.rows, sort, i18n.language]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const names = columns.map((c) => c.name);

  function toggleSort(index: number) {
    setSort((current) => (current?.column === index
      ? current.direction === "asc" ? { column: index, direction: "desc" } : null
      : { column: index, direction: "asc" }));
  }

  async function download() {
    setDownloadError(null);
    setDownloading(true);
    let blob: Blob;
    try {
      blob = fetchCsv ? await fetchCsv() : new Blob([toCsv(names, rows)], { type: "text/csv;charset=utf-8" });
    } catch (caught) {
      setDownloadError(caught);
      return;
    } finally {
      setDownloading(false);
    }
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${fileName.replace(/[^\p{L}\p{N}_-]+/gu, "_") || "result"}.csv`;
    link.click();
    URL.revokeObjectURL(link.href);
  }

  async function copy() {
    await navigator.clipboard?.writeText(toTsv(names, rows)).catch(() => undefined);
    setCopied(true);
    window.setTimeout(() => setCopied(false), 1500);
  }

  return (
    <div className={styles.wrapper}>
      <div className={styles.actions}>
        <Button variant="ghost" onClick={() => void copy()}>{copied ? t("results.copied") : t("results.copy")}</Button>
        <Button variant="ghost" onClick={() => void download()} disabled={downloading}>
          {downloading ? t("results.preparingCsv") : t("results.downloadCsv")}
        </Button>
      </div>
      <ErrorMessage error={downloadError} />
      <div ref={scroller} className={styles.scroller} tabIndex={0} role="region" aria-label={t("results.table")}>
        <table className={styles.table} aria-rowcount={rows.length + 1}>
          <thead>
            <tr>
              {columns.map((column, index) => (
                <th key={`${column.name}-${index}`} scope="col" className={styles.header} style={sized(index)}
                  ref={(element) => { headers.current[index] = element; }}
                  aria-sort={sort?.column === index ? (sort.direction === "asc" ? "ascending" : "descending") : "none"}>
                  <button type="button" className={styles.sortButton} onClick={() => toggleSort(index)}
                    title={column.type}>
                    {column.name}
                    <span aria-hidden="true">{sort?.column === index ? (sort.direction === "asc" ? " ▲" : " ▼") : ""}</span>
                  </button>
                  <ColumnResizer label={t("results.resizeColumn", { name: column.name })} width={widths[index]}
                    measure={() => headers.current[index]?.getBoundingClientRect().width ?? 120}
                    onResize={(width) => setWidths((old) => ({ ...old, [index]: width }))} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && <tr aria-hidden="true"><td colSpan={columns.length} style={{ height: padTop }} /></tr>}
            {items.map((item) => {
              const row = rows[item.index]!;
              return (
                <tr key={item.key} aria-rowindex={item.index + 2} style={{ height: ROW_HEIGHT }}>
                  {row.map((value, index) => (
                    <td key={index} style={sized(index)}
                      className={value === null ? styles.null : typeof value === "number" ? styles.number : undefined}>
                      {cellText(value)}
                    </td>
                  ))}
                </tr>
              );
            })}
            {padBottom > 0 && <tr aria-hidden="true"><td colSpan={columns.length} style={{ height: padBottom }} /></tr>}
          </tbody>
        </table>
      </div>
    </div>
  );
}
