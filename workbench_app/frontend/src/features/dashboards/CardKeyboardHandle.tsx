// The editor's keyboard way to place a card, beside dragging: focus the card's handle, arrow keys
// move it one grid step, Shift + arrow keys resize it; the page announces the new place.
import type { KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import styles from "./DashboardPage.module.css";

const STEPS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1],
};

interface Props {
  name: string;
  onNudge: (dx: number, dy: number, resize: boolean) => void;
}

export function CardKeyboardHandle({ name, onNudge }: Props) {
  const { t } = useTranslation();
  function keyDown(event: KeyboardEvent<HTMLButtonElement>) {
    const step = STEPS[event.key];
    if (!step) return;
    event.preventDefault();
    onNudge(step[0], step[1], event.shiftKey);
  }
  return (
    <button type="button" className={`${styles.dragHandle} ${styles.keyHandle}`} onKeyDown={keyDown}
      aria-label={t("dashboards.placeCard", { name })} aria-keyshortcuts="ArrowUp ArrowDown ArrowLeft ArrowRight Shift+ArrowUp Shift+ArrowDown Shift+ArrowLeft Shift+ArrowRight"
      title={t("dashboards.placeCardHint")}>⠿</button>
  );
}
