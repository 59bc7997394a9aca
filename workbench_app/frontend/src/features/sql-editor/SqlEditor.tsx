// CodeMirror 6 with the DuckDB dialect. Completions come from the server (only what the person
// may read), never from a schema shipped to the browser. Ctrl/Cmd+Enter runs the selection, or
// everything when nothing is selected.
import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { sql } from "@codemirror/lang-sql";
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorState, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, keymap, lineNumbers, placeholder, type DecorationSet } from "@codemirror/view";
import { useEffect, useRef } from "react";
import { api } from "../../api/client";
import { DuckDB } from "./duckdbDialect";
import styles from "./SqlEditor.module.css";

export interface ErrorPosition {
  line: number;
  column: number;
}

const KIND_TYPES: Record<string, string> = {
  catalog: "namespace", schema: "namespace", table: "class", view: "class", column: "property",
  function: "function", keyword: "keyword",
};

async function serverCompletions(context: CompletionContext): Promise<CompletionResult | null> {
  const word = context.matchBefore(/\w*/);
  if (!context.explicit && (!word || word.from === word.to) && context.state.sliceDoc(context.pos - 1, context.pos) !== ".") {
    return null;
  }
  const text = context.state.doc.toString();
  const { data } = await api.POST("/sql/autocomplete", { body: { sql: text, cursor: context.pos } }).catch(() => ({ data: undefined }));
  const suggestions = ((data as { suggestions?: { label: string; kind: string; detail?: string }[] } | undefined)?.suggestions) ?? [];
  if (context.aborted) return null;
  return {
    from: word ? word.from : context.pos,
    options: suggestions.map((s) => ({ label: s.label, type: KIND_TYPES[s.kind] ?? "text", detail: s.detail ?? "" })),
    validFor: /^\w*$/,
  };
}

const setError = StateEffect.define<ErrorPosition | null>();
const errorMark = Decoration.mark({ class: styles.errorMark ?? "", attributes: { "aria-invalid": "true" } });
const errorLine = Decoration.line({ class: styles.errorLine ?? "" });

const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    for (const effect of transaction.effects) {
      if (!effect.is(setError)) continue;
      if (!effect.value) return Decoration.none;
      const doc = transaction.state.doc;
      const line = doc.line(Math.min(Math.max(effect.value.line, 1), doc.lines));
      const from = Math.min(line.from + Math.max(effect.value.column - 1, 0), line.to);
      const to = Math.min(Math.max(from + 1, line.to), line.to);
      const ranges = [errorLine.range(line.from)];
      if (to > from) ranges.push(errorMark.range(from, to));
      return Decoration.set(ranges, true);
    }
    return transaction.docChanged ? Decoration.none : marks.map(transaction.changes);
  },
  provide: (field) => EditorView.decorations.from(field),
});

interface Props {
  value: string;
  onChange: (value: string) => void;
  onRun: (sqlToRun: string) => void;
  error?: ErrorPosition | null | undefined;
  label: string;
  placeholderText?: string;
}

export function SqlEditor({ value, onChange, onRun, error, label, placeholderText = "" }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onRun });
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    const run = (editor: EditorView) => {
      const { from, to } = editor.state.selection.main;
      callbacks.current.onRun(from === to ? editor.state.doc.toString() : editor.state.sliceDoc(from, to));
      return true;
    };
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(), history(), bracketMatching(), syntaxHighlighting(defaultHighlightStyle),
          sql({ dialect: DuckDB, upperCaseKeywords: true }),
          autocompletion({ override: [serverCompletions], activateOnTypingDelay: 150 }),
          keymap.of([{ key: "Mod-Enter", run, preventDefault: true }, ...defaultKeymap, ...historyKeymap]),
          placeholder(placeholderText), errorField, EditorView.lineWrapping,
          EditorView.contentAttributes.of({ "aria-label": label, "aria-multiline": "true" }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
    // The editor is made once; later values arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setError.of(error ?? null) });
  }, [error]);

  return <div ref={host} className={styles.editor} data-testid="sql-editor" />;
}
