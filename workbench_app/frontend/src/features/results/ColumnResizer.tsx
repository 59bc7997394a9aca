// The handle at a column header's right edge: drag it, or focus it and use the arrow keys (a
// separator in ARIA terms), so resizing is not a mouse-only gesture.
import type { KeyboardEvent, PointerEvent } from "react";
import styles from "./ResultTable.module.css";

const STEP = 16;
export const MIN_WIDTH = 48;

interface Props {
  label: string;
  width: number | undefined;
  /** The column's current width in pixels, read from the page when it has none of its own yet. */
  measure: () => number;
  onResize: (width: number) => void;
}

export function ColumnResizer({ label, width, measure, onResize }: Props) {
  const current = () => width ?? measure();

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const delta = event.key === "ArrowRight" ? STEP : event.key === "ArrowLeft" ? -STEP : 0;
    if (delta === 0) return;
    event.preventDefault();
    onResize(Math.max(MIN_WIDTH, current() + delta));
  }

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    const handle = event.currentTarget;
    const startX = event.clientX;
    const startWidth = current();
    handle.setPointerCapture(event.pointerId);
    const move = (moved: globalThis.PointerEvent) => onResize(Math.max(MIN_WIDTH, startWidth + moved.clientX - startX));
    const stop = () => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", stop);
      handle.removeEventListener("pointercancel", stop);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", stop);
    handle.addEventListener("pointercancel", stop);
  }

  return (
    <div role="separator" aria-orientation="vertical" aria-label={label} tabIndex={0}
      // A focusable separator must say its value (axe: aria-required-attr); until the person sets a
      // width the column fits its content, which is at least MIN_WIDTH.
      aria-valuenow={Math.round(width ?? MIN_WIDTH)} aria-valuemin={MIN_WIDTH}
      className={styles.resizer} onKeyDown={onKeyDown} onPointerDown={onPointerDown} />
  );
}
