// The grid of cards (react-grid-layout): fixed in the viewer, dragged and resized in the editor.
// On a narrow window the cards stack in one column, in reading order.
import type { ReactNode } from "react";
import { GridLayout, useContainerWidth, type Layout } from "react-grid-layout";
import "react-grid-layout/css/styles.css";
import { GRID_COLUMNS, type DraftCard } from "./dashboardDraft";
import styles from "./DashboardPage.module.css";

const ROW_HEIGHT = 72;
const NARROW = 640;

interface Props {
  cards: DraftCard[];
  editing: boolean;
  onPlace: (items: Layout) => void;
  render: (card: DraftCard) => ReactNode;
}

export function DashboardGrid({ cards, editing, onPlace, render }: Props) {
  const { width, containerRef, mounted } = useContainerWidth();
  const ordered = [...cards].sort((a, b) => a.row - b.row || a.col - b.col);
  return (
    <div ref={containerRef} className={editing ? styles.grid : `${styles.grid} ${styles.still}`}>
      {mounted && width < NARROW && !editing ? (
        <div className={styles.stack}>{ordered.map((card) => <div key={card.key}>{render(card)}</div>)}</div>
      ) : mounted && (
        <GridLayout width={width} layout={ordered.map((card) => ({ i: card.key, x: card.col, y: card.row, w: card.width, h: card.height, minH: 1, minW: 2 }))}
          gridConfig={{ cols: GRID_COLUMNS, rowHeight: ROW_HEIGHT, margin: [12, 12] }}
          dragConfig={{ enabled: editing, handle: `.${styles.dragHandle}` }}
          resizeConfig={{ enabled: editing, handles: ["se"] }}
          onDragStop={(layout) => onPlace(layout)} onResizeStop={(layout) => onPlace(layout)}>
          {ordered.map((card) => <div key={card.key} data-testid="grid-card">{render(card)}</div>)}
        </GridLayout>
      )}
    </div>
  );
}
