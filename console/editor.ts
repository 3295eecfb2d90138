// The SQL editor: CodeMirror 6 with a QuestDB dialect of @codemirror/lang-sql (QuestDB's keywords,
// svcdb's function names and column types, inlined at build), completion of those words and of
// the tables and columns the table list found, errors marked at their position (@codemirror/lint),
// Ctrl/Cmd+Enter to run the statement under the cursor.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { HighlightStyle, bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { SQLDialect, keywordCompletionSource, schemaCompletionSource, type SQLNamespace } from '@codemirror/lang-sql';
import { setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { tags } from '@lezer/highlight';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder,
} from '@codemirror/view';

/** QuestDB's words beyond its keyword catalogue that its grammar uses (SAMPLE BY ... FILL, LATEST ON, ...). */
const EXTRA_KEYWORDS =
  'align calendar prev linear dedup upsert keys wal bypass ttl materialized view refresh period ' +
  'immediate manual incremental every start time zone offset latest partition hour day week month year ' +
  'none explain vacuum reindex snapshot checkpoint release prepare cancel query if exists ilike like ' +
  'declare is true false within timestamp asof lt splice horizon range rows preceding following current ' +
  'unbounded exclude ties others nulls first last limit';

export const DIALECT = SQLDialect.define({
  // An extra word that is also a function (first, last) stays a function.
  keywords: [
    ...new Set([
      ...__SQL_WORDS__.keywords,
      ...EXTRA_KEYWORDS.split(' ').filter((w) => !__SQL_WORDS__.functions.includes(w)),
    ]),
  ].join(' '),
  builtin: __SQL_WORDS__.functions.join(' '),
  types: __SQL_WORDS__.types.join(' '),
  identifierQuotes: '"',
  doubleQuotedStrings: false,
});

/** Keywords, function names (lang-sql's builtins) and types each get their colour. */
export const SQL_HIGHLIGHT = HighlightStyle.define([
  { tag: tags.keyword, color: '#7c3aed', fontWeight: '600' },
  { tag: tags.standard(tags.name), color: '#2563eb' },
  { tag: tags.typeName, color: '#0f766e' },
  { tag: [tags.string, tags.special(tags.string)], color: '#b45309' },
  { tag: [tags.number, tags.bool, tags.null], color: '#15803d' },
  { tag: [tags.lineComment, tags.blockComment], color: '#6b7280', fontStyle: 'italic' },
  { tag: tags.operator, color: '#475569' },
]);

export interface Schema {
  /** Table name -> its columns (name, type). */
  readonly tables: ReadonlyMap<string, readonly { name: string; type: string }[]>;
}

/** Where a statement sits in the document. */
export interface Statement {
  readonly text: string;
  readonly from: number;
}

export interface SqlEditor {
  readonly view: EditorView;
  /** The selection if any, else the statement under the cursor (statements end at `;`). */
  currentStatement(): Statement;
  setSchema(schema: Schema): void;
  /** Marks an error at `pos` (a document offset) up to the end of the word there; null clears. */
  markError(pos: number | null, message?: string): void;
  setText(text: string): void;
}

export function createEditor(parent: HTMLElement, initial: string, run: () => void): SqlEditor {
  const schemaSlot = new Compartment();
  let columnOptions: Completion[] = [];
  const completeColumns = (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/[\w$]+/);
    if (!word || (word.from === word.to && !ctx.explicit)) return null;
    if (/\.$/.test(ctx.state.sliceDoc(word.from - 1, word.from))) return null; // table.col: lang-sql's schema source
    return { from: word.from, options: columnOptions, validFor: /^[\w$]*$/ };
  };
  const schemaExt = (schema: Schema | null): ReturnType<typeof DIALECT.language.data.of> => {
    const ns: Record<string, SQLNamespace> = {};
    for (const [t, cols] of schema?.tables ?? [])
      ns[t] = cols.map((c) => ({ label: c.name, type: 'property', detail: c.type }));
    return DIALECT.language.data.of({ autocomplete: schemaCompletionSource({ dialect: DIALECT, schema: ns }) });
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: initial,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        placeholder('Type SQL here; Ctrl+Enter runs the statement under the cursor'),
        DIALECT.language,
        syntaxHighlighting(SQL_HIGHLIGHT),
        DIALECT.language.data.of({ autocomplete: keywordCompletionSource(DIALECT, false) }),
        DIALECT.language.data.of({ autocomplete: completeColumns }),
        schemaSlot.of(schemaExt(null)),
        autocompletion({ activateOnTyping: true }),
        Prec.highest(
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                run();
                return true;
              },
            },
          ]),
        ),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
        // An edit clears the error marker: it no longer points at the text that failed.
        EditorView.updateListener.of((u) => {
          if (u.docChanged) u.view.dispatch(setDiagnostics(u.state, []));
        }),
        EditorView.theme({ '&': { height: '100%' }, '.cm-scroller': { overflow: 'auto' } }),
      ],
    }),
  });

  return {
    view,
    currentStatement(): Statement {
      const sel = view.state.selection.main;
      const doc = view.state.doc.toString();
      if (!sel.empty) return { text: doc.slice(sel.from, sel.to), from: sel.from };
      return statementAt(doc, sel.head);
    },
    setSchema(schema: Schema): void {
      const seen = new Map<string, Completion>();
      for (const [table, cols] of schema.tables)
        for (const c of cols) {
          const prev = seen.get(c.name);
          if (prev) prev.detail = `${prev.detail ?? ''}, ${table}`;
          else seen.set(c.name, { label: c.name, type: 'property', detail: `${c.type} · ${table}`, boost: -1 });
        }
      columnOptions = [...seen.values()];
      view.dispatch({ effects: schemaSlot.reconfigure(schemaExt(schema)) });
    },
    markError(pos: number | null, message = 'error'): void {
      if (pos === null) {
        view.dispatch(setDiagnostics(view.state, []));
        return;
      }
      const doc = view.state.doc.toString();
      const from = Math.max(0, Math.min(pos, doc.length));
      let to = from;
      while (to < doc.length && /[\w$.]/.test(doc[to] ?? '')) to++;
      if (to === from && to < doc.length) to++;
      view.dispatch(setDiagnostics(view.state, [{ from, to, severity: 'error', message }]));
    },
    setText(text: string): void {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        selection: { anchor: text.length },
      });
    },
  };
}

/** The `;`-separated statement around `pos`, skipping quotes and comments; trimmed, its offset kept. */
export function statementAt(doc: string, pos: number): Statement {
  const bounds: number[] = [0];
  for (let i = 0; i < doc.length; i++) {
    const c = doc[i];
    if (c === "'" || c === '"') {
      const q = c;
      for (i++; i < doc.length && doc[i] !== q; i++);
    } else if (c === '-' && doc[i + 1] === '-') {
      while (i < doc.length && doc[i] !== '\n') i++;
    } else if (c === '/' && doc[i + 1] === '*') {
      const end = doc.indexOf('*/', i + 2);
      i = end < 0 ? doc.length : end + 1;
    } else if (c === ';') bounds.push(i + 1);
  }
  bounds.push(doc.length + 1);
  let k = 0;
  while (k + 1 < bounds.length - 1 && (bounds[k + 1] ?? 0) <= pos) k++;
  // A cursor right after the last `;` of a blank tail belongs to the statement before it.
  let from = bounds[k] ?? 0;
  let to = Math.min((bounds[k + 1] ?? doc.length + 1) - 1, doc.length);
  if (doc.slice(from, to).trim() === '' && k > 0) {
    to = from - 1;
    from = bounds[k - 1] ?? 0;
  }
  let text = doc.slice(from, to);
  const lead = text.length - text.trimStart().length;
  text = text.trim().replace(/;$/, '');
  return { text, from: from + lead };
}
