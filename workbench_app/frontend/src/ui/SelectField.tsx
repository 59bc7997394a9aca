import { useId } from "react";
import styles from "./Field.module.css";

interface Props<T extends string> {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  hideLabel?: boolean;
}

export function SelectField<T extends string>({ label, value, options, onChange, hideLabel }: Props<T>) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={hideLabel ? styles.visuallyHidden : undefined}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as T)} className={styles.input}>
        {options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
      </select>
    </div>
  );
}
