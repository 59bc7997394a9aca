// A saved question's answer dressed in the theme of its folder (resolved by the server), as the
// dashboard viewer dresses its cards: the same themed area, the answer on a card of the theme.
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import styles from "./QuestionTheme.module.css";
import { AppliedTheme } from "./ThemedArea";
import { useQuestionTheme } from "./useEffectiveTheme";

export function QuestionTheme({ questionId, children }: { questionId: number | null; children: ReactNode }) {
  const { t } = useTranslation();
  const theme = useQuestionTheme(questionId);
  // A question not saved yet has no folder; a theme that cannot be read leaves the app's own look.
  if (questionId === null || theme.isError) return <>{children}</>;
  // Wait for the theme: a chart reads its palette from the area when it draws.
  if (theme.isPending) return <p role="status">{t("common.loading")}</p>;
  return (
    <AppliedTheme theme={theme.data}>
      <div className={styles.card} data-testid="question-card">{children}</div>
    </AppliedTheme>
  );
}
