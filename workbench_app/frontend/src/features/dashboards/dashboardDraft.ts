// A dashboard being edited: tabs, cards and filters with local keys, as PUT /dashboards/<id>
// saves them whole. Pure: the editor's every change is a function from draft to draft, so
// "undo the last change" is keeping the draft before it.
import type { components } from "../../api/schema";

// The saved dashboard's shapes come from the server's models (workbench_app/content/shapes.py)
// through the OpenAPI document (`make api-types`).
type Schemas = components["schemas"];
export type Dashboard = Schemas["Dashboard"];
export type SavedCard = Schemas["DashboardCard"];
export type SavedFilter = Schemas["DashboardFilter"];
/** A filter feeds a card's variable (a date range: `variable` and `end_variable`) or a column of its result. */
export type SavedLink = Schemas["FilterLink"];
/** Where a one-of filter takes its values: a column the viewer may read. */
export type ValuesSource = Schemas["ValuesSource"];
export type CardKind = SavedCard["kind"];
export type FilterType = SavedFilter["type"];
export type FilterDefault = SavedFilter["default_value"];
export interface DraftLink { card: string; variable?: string | undefined; end_variable?: string | undefined; column?: string | undefined }

export interface DraftCard {
  key: string;
  tab: string | null;
  kind: CardKind;
  question_id?: number | undefined;
  question_name?: string | undefined;
  visualization?: Record<string, unknown> | null | undefined;
  variables?: Record<string, string> | null | undefined;
  text?: string | undefined;
  col: number;
  row: number;
  width: number;
  height: number;
}

export interface DraftFilter {
  key: string;
  name: string;
  type: FilterType;
  default: string;
  required: boolean;
  values?: ValuesSource | undefined;
  links: DraftLink[];
}

export interface Draft {
  warm_up: boolean;
  /** The dashboard's own theme as chosen in the editor (null: its folder's; undefined: unchanged).
   *  Saved apart (PUT /dashboards/<id>/theme), so saveBody leaves it out. */
  theme_id?: number | null | undefined;
  tabs: { key: string; name: string }[];
  cards: DraftCard[];
  filters: DraftFilter[];
}

export const GRID_COLUMNS = 12;

export function draftOf(dashboard: Dashboard): Draft {
  return {
    warm_up: dashboard.warm_up,
    tabs: dashboard.tabs.map((tab) => ({ key: `t${tab.tab_id}`, name: tab.name })),
    cards: dashboard.cards.map((card) => ({
      key: `c${card.card_id}`, tab: card.tab_id === null ? null : `t${card.tab_id}`, kind: card.kind,
      question_id: card.question_id ?? undefined, question_name: card.question_name ?? undefined,
      visualization: card.visualization, variables: card.variables, text: card.text ?? undefined,
      col: card.col, row: card.row, width: card.width, height: card.height,
    })),
    filters: dashboard.filters.map((item) => ({
      key: `f${item.filter_id}`, name: item.name, type: item.type, required: item.required,
      default: defaultText(item.default_value), values: item.values ?? undefined,
      links: item.links.map((link) => ({
        card: `c${link.card_id}`, variable: link.variable ?? undefined, end_variable: link.end_variable ?? undefined,
        column: link.column ?? undefined,
      })),
    })),
  };
}

/** A saved default as the editor's text: a one-of list as its values separated by commas. */
export function defaultText(value: FilterDefault): string {
  if (value === null) return "";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The editor's default text as the API takes it (a one-of list from comma-separated values). */
export function defaultValue(type: FilterType, text: string): FilterDefault {
  if (text.trim() === "") return null;
  return type === "one_of" ? text.split(",").map((part) => part.trim()).filter(Boolean) : text;
}

/** The body of PUT /dashboards/<id> that saves the draft whole. */
export function saveBody(draft: Draft) {
  return {
    warm_up: draft.warm_up,
    tabs: draft.tabs.map((tab) => ({ key: tab.key, name: tab.name })),
    cards: draft.cards.map((card) => ({
      key: card.key, tab: card.tab, kind: card.kind, col: card.col, row: card.row, width: card.width, height: card.height,
      ...(card.kind === "question" ? { question_id: card.question_id } : { text: card.text ?? "" }),
    })),
    filters: draft.filters.map((item) => ({
      key: item.key, name: item.name, type: item.type, required: item.required,
      default: defaultValue(item.type, item.default), links: item.links,
      ...(item.type === "one_of" ? { values: item.values ?? { table: "", column: "" } } : {}),
    })),
  };
}

/** The tab shown for the address's `tab` parameter: the first one when it names none. */
export function shownTab(draft: Draft, asked: string | null): string | null {
  return draft.tabs.find((item) => item.key === asked)?.key ?? draft.tabs[0]?.key ?? null;
}

/** The saved card id of a question card (`c<id>`); null for text, headings and unsaved cards. */
export function savedQuestionCardId(card: DraftCard): number | null {
  return card.kind === "question" && card.key.startsWith("c") && card.question_id !== undefined ? Number(card.key.slice(1)) : null;
}

/** The tab a card shows on: cards saved without a tab belong to the first one. */
export function cardsOfTab(draft: Draft, tab: string | null): DraftCard[] {
  const first = draft.tabs[0]?.key ?? null;
  return draft.cards.filter((card) => (card.tab ?? first) === tab);
}

function freshKey(prefix: string, taken: readonly { key: string }[]): string {
  let index = taken.length + 1;
  while (taken.some((item) => item.key === `${prefix}${index}`)) index += 1;
  return `${prefix}${index}`;
}

function bottom(cards: readonly DraftCard[]): number {
  return cards.reduce((lowest, card) => Math.max(lowest, card.row + card.height), 0);
}

/** A new card below the others of the tab. */
export function addCard(draft: Draft, tab: string | null, card: Pick<DraftCard, "kind"> & Partial<DraftCard>): Draft {
  const size = card.kind === "heading" ? { width: GRID_COLUMNS, height: 1 } : card.kind === "text" ? { width: 6, height: 3 } : { width: 6, height: 4 };
  const added: DraftCard = { ...size, ...card, key: freshKey("n", draft.cards), tab, col: 0, row: bottom(cardsOfTab(draft, tab)) };
  return { ...draft, cards: [...draft.cards, added] };
}

/** A copy of a card beside or below it; the copy is fed by the same filters. */
export function duplicateCard(draft: Draft, key: string): Draft {
  const card = draft.cards.find((item) => item.key === key);
  if (!card) return draft;
  const copy: DraftCard = { ...card, key: freshKey("n", draft.cards), row: bottom(cardsOfTab(draft, card.tab)), col: card.col };
  return {
    ...draft,
    cards: [...draft.cards, copy],
    filters: draft.filters.map((item) => ({
      ...item, links: [...item.links, ...item.links.filter((link) => link.card === key).map((link) => ({ ...link, card: copy.key }))],
    })),
  };
}

export function removeCard(draft: Draft, key: string): Draft {
  return {
    ...draft,
    cards: draft.cards.filter((card) => card.key !== key),
    filters: draft.filters.map((item) => ({ ...item, links: item.links.filter((link) => link.card !== key) })),
  };
}

export function changeCard(draft: Draft, key: string, change: Partial<DraftCard>): Draft {
  return { ...draft, cards: draft.cards.map((card) => (card.key === key ? { ...card, ...change } : card)) };
}

/** Positions from the grid after a move or resize; unchanged when nothing moved (no undo step). */
export function placeCards(draft: Draft, items: readonly { i: string; x: number; y: number; w: number; h: number }[]): Draft {
  const at = new Map(items.map((item) => [item.i, item]));
  let moved = false;
  const cards = draft.cards.map((card) => {
    const item = at.get(card.key);
    if (!item || (item.x === card.col && item.y === card.row && item.w === card.width && item.h === card.height)) return card;
    moved = true;
    return { ...card, col: item.x, row: item.y, width: item.w, height: item.h };
  });
  return moved ? { ...draft, cards } : draft;
}

/** A new tab; the first one added to a dashboard without tabs takes its cards. */
export function addTab(draft: Draft, name: string): Draft {
  const key = freshKey("t", draft.tabs);
  const cards = draft.tabs.length === 0 ? draft.cards.map((card) => ({ ...card, tab: key })) : draft.cards;
  return { ...draft, tabs: [...draft.tabs, { key, name }], cards };
}

export function renameTab(draft: Draft, key: string, name: string): Draft {
  return { ...draft, tabs: draft.tabs.map((tab) => (tab.key === key ? { ...tab, name } : tab)) };
}

/** A removed tab takes its cards with it. */
export function removeTab(draft: Draft, key: string): Draft {
  const first = draft.tabs[0]?.key ?? null;
  const leaving = new Set(draft.cards.filter((card) => (card.tab ?? first) === key).map((card) => card.key));
  let next: Draft = { ...draft, tabs: draft.tabs.filter((tab) => tab.key !== key) };
  for (const card of leaving) next = removeCard(next, card);
  return next;
}

export function addFilter(draft: Draft, name: string, type: FilterType): Draft {
  return { ...draft, filters: [...draft.filters, { key: freshKey("f", draft.filters), name, type, default: "", required: false, links: [] }] };
}

export function changeFilter(draft: Draft, key: string, change: Partial<DraftFilter>): Draft {
  return { ...draft, filters: draft.filters.map((item) => (item.key === key ? { ...item, ...change } : item)) };
}

export function removeFilter(draft: Draft, key: string): Draft {
  return { ...draft, filters: draft.filters.filter((item) => item.key !== key) };
}

/** Feeds a card from a filter: through a field (variable), or a column of its result; null stops it. */
export function linkFilter(draft: Draft, filter: string, card: string, link: Omit<DraftLink, "card"> | null): Draft {
  const kept = link ? [{ card, ...link }] : [];
  return {
    ...draft,
    filters: draft.filters.map((item) => item.key !== filter ? item : {
      ...item, links: [...item.links.filter((old) => old.card !== card), ...kept],
    }),
  };
}

/** Moves (or, with `resize`, resizes) a card by whole grid steps from the keyboard, kept on the grid. */
export function nudgeCard(draft: Draft, key: string, dx: number, dy: number, resize: boolean): Draft {
  const card = draft.cards.find((item) => item.key === key);
  if (!card) return draft;
  const next = resize
    ? { width: Math.min(Math.max(card.width + dx, 2), GRID_COLUMNS - card.col), height: Math.max(card.height + dy, 1) }
    : { col: Math.min(Math.max(card.col + dx, 0), GRID_COLUMNS - card.width), row: Math.max(card.row + dy, 0) };
  const same = Object.entries(next).every(([name, value]) => card[name as keyof DraftCard] === value);
  return same ? draft : changeCard(draft, key, next);
}

/** The draft and the one before the last change: undo goes back one step. */
export interface Editing {
  draft: Draft;
  previous: Draft | null;
}

export function apply(editing: Editing, change: (draft: Draft) => Draft): Editing {
  const next = change(editing.draft);
  return next === editing.draft ? editing : { draft: next, previous: editing.draft };
}

export function undo(editing: Editing): Editing {
  return editing.previous ? { draft: editing.previous, previous: null } : editing;
}
