// A list of values typed one at a time (chips): Enter (or a comma, or leaving the field) adds what
// is typed, each chosen value has its own remove button named after it, and the list stops at
// `maxValues` (the server refuses more too). Pasted text "a, b" adds both.
import { useId, useRef, useState, type KeyboardEvent } from "react";
import styles from "./Field.module.css";

interface Props {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  /** The remove button's accessible name for one value, e.g. "Remove Direct from Channels". */
  removeLabel: (value: string) => string;
  /** The chosen values' list name, e.g. "Channels chosen". */
  listLabel: string;
  /** Said under the field: how to add a value. */
  hint: string;
  /** Said when the list is full. */
  fullMessage: string;
  maxValues: number;
  maxLength?: number;
}

export function splitValues(text: string): string[] {
  return text.split(",").map((part) => part.trim()).filter(Boolean);
}

/** `values` with `added` appended: no duplicate, no empty value, at most `max`. */
export function withValues(values: string[], added: string[], max: number): string[] {
  const next = [...values];
  for (const value of added) {
    if (next.length >= max) break;
    if (value && !next.includes(value)) next.push(value);
  }
  return next;
}

export function ValuesField({ label, values, onChange, removeLabel, listLabel, hint, fullMessage, maxValues,
  maxLength = 200 }: Props) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState("");
  const full = values.length >= maxValues;

  function commit(typed: string) {
    const added = splitValues(typed);
    if (added.length) onChange(withValues(values, added, maxValues));
    setText("");
  }

  function keyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();  // Enter adds a value, it does not submit the form
      commit(text);
    }
  }

  function remove(value: string) {
    onChange(values.filter((kept) => kept !== value));
    input.current?.focus();
  }

  const describedBy = `${id}-hint${full ? ` ${id}-full` : ""}`;
  return (
    <div className={styles.field}>
      <label htmlFor={id}>{label}</label>
      {values.length > 0 && (
        <ul className={styles.chips} aria-label={listLabel}>
          {values.map((value) => (
            <li key={value} className={styles.chip}>
              <span>{value}</span>
              <button type="button" className={styles.chipRemove} aria-label={removeLabel(value)}
                onClick={() => remove(value)}><span aria-hidden="true">×</span></button>
            </li>
          ))}
        </ul>
      )}
      <input id={id} ref={input} className={styles.input} value={text} maxLength={maxLength} disabled={full}
        aria-describedby={describedBy} onChange={(event) => {
          const typed = event.target.value;
          if (typed.includes(",")) commit(typed); else setText(typed);
        }}
        onKeyDown={keyDown} onBlur={() => { if (text.trim()) commit(text); }} />
      <span id={`${id}-hint`} className={styles.hint}>{hint}</span>
      {full && <span id={`${id}-full`} className={styles.hint} role="status">{fullMessage}</span>}
    </div>
  );
}
