import type { ReactNode } from "react";
import styles from "./PageHeader.module.css";

/** A screen's title with its actions beside it (wrapping below it on a narrow window). */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className={styles.heading}>
      <h1>{title}</h1>
      {children && <div className={styles.toolbar}>{children}</div>}
    </div>
  );
}
