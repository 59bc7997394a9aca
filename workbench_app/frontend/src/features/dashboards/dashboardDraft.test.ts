import { describe, expect, it } from "vitest";
import {
  addCard, addTab, apply, cardsOfTab, draftOf, duplicateCard, linkFilter, nudgeCard, placeCards, removeCard, removeTab,
  saveBody, undo,
  type Dashboard, type Editing,
} from "./dashboardDraft";

const saved: Dashboard = {
  dashboard_id: 1, folder_id: 1, name: "Traffic", description: "", auto_refresh_seconds: null, cache_ttl_seconds: 300, warm_up: false,
  created_by: 1, created_at: "", updated_at: "",
  tabs: [],
  cards: [
    { card_id: 10, tab_id: null, kind: "question", question_id: 3, question_name: "Visits", visualization: null,
      variables: { channel: "text" }, text: null, col: 0, row: 0, width: 6, height: 4 },
    { card_id: 11, tab_id: null, kind: "text", question_id: null, question_name: null, visualization: null,
      variables: null, text: "# Hello", col: 6, row: 0, width: 6, height: 4 },
  ],
  filters: [{ filter_id: 5, name: "Channel", type: "text", default_value: null, required: false, values: null,
    links: [{ card_id: 10, variable: "channel", end_variable: null, column: null }] }],
};

describe("a dashboard draft", () => {
  it("keeps a chosen theme out of the saved body (it has its own endpoint), and undo takes it back", () => {
    const editing = apply({ draft: draftOf(saved), previous: null }, (d) => ({ ...d, theme_id: 7 }));
    expect(editing.draft.theme_id).toBe(7);
    expect("theme_id" in saveBody(editing.draft)).toBe(false);
    expect(undo(editing).draft.theme_id).toBeUndefined();
  });

  it("saves what it was read from, keys linking filters to cards", () => {
    const body = saveBody(draftOf(saved));
    expect(body.cards).toEqual([
      { key: "c10", tab: null, kind: "question", question_id: 3, col: 0, row: 0, width: 6, height: 4 },
      { key: "c11", tab: null, kind: "text", text: "# Hello", col: 6, row: 0, width: 6, height: 4 },
    ]);
    expect(body.filters[0]).toEqual({ key: "f5", name: "Channel", type: "text", required: false, default: null,
      links: [{ card: "c10", variable: "channel", end_variable: undefined, column: undefined }] });
    expect(body.warm_up).toBe(false);
  });

  it("adds a card below the others and duplicates one with its filter links", () => {
    const added = addCard(draftOf(saved), null, { kind: "heading", text: "Part two" });
    expect(added.cards.at(-1)).toMatchObject({ kind: "heading", row: 4, col: 0, width: 12, height: 1 });
    const copied = duplicateCard(draftOf(saved), "c10");
    const copy = copied.cards.at(-1)!;
    expect(copy).toMatchObject({ kind: "question", question_id: 3, row: 4 });
    expect(copied.filters[0]!.links).toContainEqual({ card: copy.key, variable: "channel", end_variable: undefined, column: undefined });
  });

  it("removes a card and the links to it", () => {
    const removed = removeCard(draftOf(saved), "c10");
    expect(removed.cards.map((c) => c.key)).toEqual(["c11"]);
    expect(removed.filters[0]!.links).toEqual([]);
  });

  it("moves cards only when the grid changed something", () => {
    const draft = draftOf(saved);
    expect(placeCards(draft, [{ i: "c10", x: 0, y: 0, w: 6, h: 4 }])).toBe(draft);
    expect(placeCards(draft, [{ i: "c10", x: 6, y: 4, w: 3, h: 2 }]).cards[0]).toMatchObject({ col: 6, row: 4, width: 3, height: 2 });
  });

  it("puts existing cards on the first tab added, and a removed tab takes its cards", () => {
    const tabbed = addTab(addTab(draftOf(saved), "Overview"), "Details");
    expect(cardsOfTab(tabbed, "t1").map((c) => c.key)).toEqual(["c10", "c11"]);
    expect(cardsOfTab(tabbed, "t2")).toEqual([]);
    expect(removeTab(tabbed, "t1").cards).toEqual([]);
  });

  it("links and unlinks a filter", () => {
    const draft = linkFilter(draftOf(saved), "f5", "c10", null);
    expect(draft.filters[0]!.links).toEqual([]);
    expect(linkFilter(draft, "f5", "c10", { column: "channel" }).filters[0]!.links).toEqual([{ card: "c10", column: "channel" }]);
  });

  it("moves and resizes a card from the keyboard, kept on the grid", () => {
    const draft = draftOf(saved);
    expect(nudgeCard(draft, "c10", 1, 0, false).cards[0]).toMatchObject({ col: 1, row: 0 });
    expect(nudgeCard(draft, "c10", -1, 0, false)).toBe(draft);
    expect(nudgeCard(draft, "c10", 0, 1, true).cards[0]).toMatchObject({ width: 6, height: 5 });
    expect(nudgeCard(draft, "c11", 1, 0, true)).toBe(draft);
    expect(nudgeCard(draft, "c10", -5, 0, true).cards[0]).toMatchObject({ width: 2 });
  });

  it("undoes the last change only", () => {
    let editing: Editing = { draft: draftOf(saved), previous: null };
    editing = apply(editing, (d) => removeCard(d, "c11"));
    editing = apply(editing, (d) => removeCard(d, "c10"));
    expect(editing.draft.cards).toEqual([]);
    editing = undo(editing);
    expect(editing.draft.cards.map((c) => c.key)).toEqual(["c10"]);
    expect(undo(editing)).toBe(editing);
  });
});
