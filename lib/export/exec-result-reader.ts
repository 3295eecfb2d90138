// Reads the /exec JSON document (SPEC.md "Query response", "DDL / update
// response") as it streams in, for svcdb query: the columns, each dataset row
// as cell texts (numbers as the server wrote their digits, NULL as null), and
// the other top-level members (ddl, updated, a late error...). No row is kept.
import { JsonSyntaxError, JsonTokenizer, type JsonTokenSink } from './json-tokenizer.js';

export interface ExecColumn {
  readonly name: string;
  readonly type: string;
}

/** A cell: a string's value, a number's or boolean's text, or null. */
export type Cell = string | null;

export interface ExecRowSink {
  columns(columns: readonly ExecColumn[]): void;
  /** One row; the array is reused for the next row. */
  row(cells: readonly Cell[]): void;
}

/** A top-level scalar member: its value as text (numbers as written), or null. */
export type Member = string | null;

export class ExecResultReader implements JsonTokenSink {
  readonly #tokens = new JsonTokenizer(this);
  readonly #sink: ExecRowSink;
  /** Top-level scalar members (query, timestamp, ddl, updated, count, error, errorPos...). */
  readonly members = new Map<string, Member>();
  #rows = 0;
  #depth = 0;
  #topKey = '';
  #columns: ExecColumn[] = [];
  #columnKey = '';
  #column: { name: string; type: string } = { name: '', type: '' };
  readonly #cells: Cell[] = [];
  /** A cell that is itself an array or object, as compact JSON text (depth > 3). */
  #nested: string[] = [];
  #nestedComma = false;
  #sawDataset = false;
  #complete = false;

  constructor(sink: ExecRowSink) {
    this.#sink = sink;
  }

  /** Rows read so far. */
  get rows(): number {
    return this.#rows;
  }

  /** Whether the document had a dataset (a query) rather than a statement's answer. */
  get hasDataset(): boolean {
    return this.#sawDataset;
  }

  write(chunk: Uint8Array): void {
    this.#tokens.write(chunk);
  }

  end(): void {
    this.#tokens.end();
    if (!this.#complete) throw new JsonSyntaxError('the answer holds no JSON document');
  }

  startObject(): void {
    this.#open('{');
  }
  startArray(): void {
    this.#open('[');
  }
  endObject(): void {
    this.#close('}');
  }
  endArray(): void {
    this.#close(']');
  }

  key(name: string): void {
    const d = this.#depth;
    if (d === 1) this.#topKey = name;
    else if (d === 3 && this.#topKey === 'columns') this.#columnKey = name;
    else if (d > 3 && this.#inDataset()) {
      this.#nestedSep();
      this.#nested.push(JSON.stringify(name), ':');
      this.#nestedComma = false;
    }
  }

  string(value: string): void {
    this.#value(value, JSON.stringify(value));
  }
  number(text: string): void {
    this.#value(text, text);
  }
  literal(value: true | false | null): void {
    const text = value === null ? 'null' : String(value);
    this.#value(value === null ? null : text, text);
  }

  #inDataset(): boolean {
    return this.#topKey === 'dataset';
  }

  #open(bracket: '{' | '['): void {
    const d = ++this.#depth;
    if (d === 2 && this.#topKey === 'dataset') this.#sawDataset = true;
    else if (d === 3 && this.#topKey === 'dataset') this.#cells.length = 0;
    else if (d === 3 && this.#topKey === 'columns') this.#column = { name: '', type: '' };
    else if (d > 3 && this.#inDataset()) {
      this.#nestedSep();
      this.#nested.push(bracket);
      this.#nestedComma = false;
    }
  }

  #close(bracket: '}' | ']'): void {
    const d = this.#depth--;
    if (d === 1) this.#complete = true;
    else if (d === 2 && this.#topKey === 'columns') this.#sink.columns(this.#columns);
    else if (d === 3 && this.#topKey === 'dataset') {
      this.#rows++;
      this.#sink.row(this.#cells);
    } else if (d === 3 && this.#topKey === 'columns') this.#columns.push(this.#column);
    else if (d > 3 && this.#inDataset()) {
      this.#nested.push(bracket);
      this.#nestedComma = true;
      if (d === 4) {
        this.#cells.push(this.#nested.join(''));
        this.#nested = [];
        this.#nestedComma = false;
      }
    }
  }

  #nestedSep(): void {
    if (this.#nestedComma) this.#nested.push(',');
  }

  /** `cell` is what a table shows, `json` the value's JSON text (for nested cells). */
  #value(cell: Cell, json: string): void {
    const d = this.#depth;
    if (d === 1) this.members.set(this.#topKey, cell);
    else if (d === 3 && this.#topKey === 'dataset') this.#cells.push(cell);
    else if (d === 3 && this.#topKey === 'columns') {
      if (this.#columnKey === 'name') this.#column.name = cell ?? '';
      else if (this.#columnKey === 'type') this.#column.type = cell ?? '';
    } else if (d > 3 && this.#inDataset()) {
      this.#nestedSep();
      this.#nested.push(json);
      this.#nestedComma = true;
    }
  }
}
