import { useId, type InputHTMLAttributes } from "react";
import styles from "./Field.module.css";

interface Props extends Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
}

export function TextField({ label, value, onChange, error, hint, ...rest }: Props) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className={styles.field}>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(event) => onChange(event.target.value)} aria-invalid={error ? true : undefined}
        aria-describedby={describedBy} className={styles.input} {...rest} />
      {hint && <span id={`${id}-hint`} className={styles.hint}>{hint}</span>}
      {error && <span id={`${id}-error`} className={styles.error}>{error}</span>}
    </div>
  );
}
