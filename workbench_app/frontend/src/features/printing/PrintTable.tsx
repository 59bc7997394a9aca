// A result as a real <table> for print: Chromium repeats the <thead> at the top of every page a
// long table runs onto (the screen's table is virtualised, which print cannot page).
import { cellText } from "../results/ResultTable";
import { resultColumns, type Result } from "../results/types";
import styles from "./PrintDashboard.module.css";

export function PrintTable({ result, title }: { result: Result; title: string }) {
  const columns = resultColumns(result);
  const rows = (result.rows ?? []) as unknown[][];
  return (
    <table className={styles.table} aria-label={title}>
      <thead>
        <tr>{columns.map((column) => <th key={column.name} scope="col">{column.name}</th>)}</tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index}>{row.map((value, column) => <td key={column}>{cellText(value)}</td>)}</tr>
        ))}
      </tbody>
    </table>
  );
}
