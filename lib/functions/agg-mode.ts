// Aggregates over a group's values taken as a whole: mode (the most frequent non-NULL value, the
// first of a tie as met; BOOLEAN ties go to true, as QuestDB's page says), bool_and / bool_or
// (a BOOLEAN is never NULL in QuestDB: bool_and is true when no row is false, bool_or when one is
// true), string_distinct_agg (the distinct non-NULL texts in the order met, joined by the
// delimiter; NULL without any) and approx_count_distinct (count_distinct's exact count: an exact
// count is within any error bound QuestDB's HyperLogLog estimate has). Text is keyed by its ids
// (agg-util Interner), a string made once per distinct value, not per row.
import { symbolsFromStrings, type ColumnVector } from '../core/column-vector.js';
import { isNumeric, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, textAt, textVector } from '../core/vec.js';
import { CountDistinctState, Interner } from './agg-util.js';
import type { AggregateState, FunctionRegistry } from './registry.js';
import { noMatch } from './signature.js';

/**
 * Keys of rows without a JS value per row: a number's own value, a text's id (agg-util Interner:
 * SYMBOL keys and dictionary codes mapped once per entry); NaN for NULL. A text's string is made
 * once, the first time its id is kept (`name`).
 */
class RowKeys {
  readonly #interner = new Interner();
  readonly #names: Array<string | undefined> = [];

  constructor(readonly text: boolean) {}

  keys(v: ColumnVector, n: number): Float64Array {
    return this.text ? this.#interner.keys(v, n) : asDoubles(v);
  }

  /** Remembers the text of row i under its key (text only; once per key). */
  keep(v: ColumnVector, i: number, key: number): void {
    if (this.text && this.#names[key] === undefined) this.#names[key] = textAt(v, i) ?? undefined;
  }

  name(key: number): string {
    return this.#names[key]!;
  }

  bytes(): number {
    return this.#interner.bytes() + this.#names.length * 40;
  }
}

/** mode over numbers (by value) or text (by id): counts per group, the first value to reach the top count wins. */
class ModeState implements AggregateState {
  readonly #counts: Array<Map<number, number>> = [];
  readonly #keys: RowKeys;
  #entries = 0;

  constructor(private readonly type: SqlType) {
    this.#keys = new RowKeys(!isNumeric(type) && type !== 'BOOLEAN');
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#counts.length < groups) this.#counts.push(new Map());
    const v = args[0]!;
    const keys = this.#keys.keys(v, n);
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      if (key !== key) continue;
      const m = this.#counts[ids[i]!]!;
      const c = m.get(key);
      if (c === undefined) {
        this.#entries++;
        this.#keys.keep(v, i, key);
      }
      m.set(key, (c ?? 0) + 1);
    }
  }

  result(groups: number): ColumnVector {
    const best = new Float64Array(groups).fill(NaN);
    for (let g = 0; g < groups; g++) {
      const m = this.#counts[g];
      if (m === undefined) continue;
      let count = 0;
      for (const [k, c] of m) {
        // Maps iterate in insertion order: a later value wins only with more rows; BOOLEAN ties go to true.
        if (c > count || (c === count && this.type === 'BOOLEAN' && k === 1)) {
          best[g] = k;
          count = c;
        }
      }
    }
    if (this.type === 'BOOLEAN') {
      const out = new Uint8Array(groups);
      for (let g = 0; g < groups; g++) out[g] = best[g] === 1 ? 1 : 0;
      return { kind: 'fixed', type: 'BOOLEAN', data: out };
    }
    if (isNumeric(this.type)) return fromDoubles(this.type, best);
    const strings = Array.from(best, (k) => (k !== k ? null : this.#keys.name(k)));
    if (this.type === 'SYMBOL') return symbolsFromStrings(strings);
    return textVector(this.type === 'VARCHAR' ? 'VARCHAR' : 'STRING', strings);
  }

  bytes(): number {
    return this.#counts.length * 64 + this.#entries * 48 + this.#keys.bytes();
  }
}

/** bool_and (`and`) / bool_or over BOOLEAN rows per group. */
class BoolState implements AggregateState {
  #seen = new Uint8Array(0);

  constructor(private readonly and: boolean) {}

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    if (this.#seen.length < groups) {
      const next = new Uint8Array(Math.max(groups, this.#seen.length * 2, 16));
      next.set(this.#seen);
      this.#seen = next;
    }
    const data = (args[0] as { data: Uint8Array }).data;
    // #seen[g]: bool_and records a false, bool_or a true.
    const wanted = this.and ? 0 : 1;
    for (let i = 0; i < n; i++) if (data[i] === wanted) this.#seen[ids[i]!] = 1;
  }

  result(groups: number): ColumnVector {
    const out = new Uint8Array(groups);
    for (let g = 0; g < groups; g++) {
      const seen = g < this.#seen.length && this.#seen[g] === 1;
      out[g] = this.and ? (seen ? 0 : 1) : seen ? 1 : 0;
    }
    return { kind: 'fixed', type: 'BOOLEAN', data: out };
  }

  bytes(): number {
    return this.#seen.length;
  }
}

/** string_distinct_agg(text, delimiter): distinct non-NULL values per group in the order met. */
class DistinctTextAgg implements AggregateState {
  readonly #sets: Array<Set<number>> = [];
  readonly #keys = new RowKeys(true);
  #delimiter: string | null = null;
  #entries = 0;

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#sets.length < groups) this.#sets.push(new Set());
    if (n === 0) return;
    this.#delimiter ??= textAt(args[1]!, 0) ?? '';
    const v = args[0]!;
    const keys = this.#keys.keys(v, n);
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      if (key !== key) continue;
      const set = this.#sets[ids[i]!]!;
      if (!set.has(key)) {
        set.add(key);
        this.#entries++;
        this.#keys.keep(v, i, key);
      }
    }
  }

  result(groups: number): ColumnVector {
    const out: Array<string | null> = [];
    for (let g = 0; g < groups; g++) {
      const set = this.#sets[g];
      out.push(
        set === undefined || set.size === 0
          ? null
          : Array.from(set, (k) => this.#keys.name(k)).join(this.#delimiter ?? ''),
      );
    }
    return textVector('STRING', out);
  }

  bytes(): number {
    return this.#sets.length * 64 + this.#entries * 16 + this.#keys.bytes();
  }
}

const TEXT: readonly SqlType[] = ['STRING', 'VARCHAR', 'SYMBOL'];

export function registerModeAggregates(registry: FunctionRegistry): void {
  registry.registerAggregate({
    name: 'mode',
    resolve(argTypes, distinct) {
      const t = argTypes[0];
      if (
        distinct ||
        argTypes.length !== 1 ||
        t === undefined ||
        !(isNumeric(t) || t === 'BOOLEAN' || TEXT.includes(t))
      )
        return noMatch('mode', argTypes);
      return { type: t, create: () => new ModeState(t) };
    },
  });
  for (const name of ['bool_and', 'bool_or'] as const) {
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        if (distinct || argTypes.length !== 1 || argTypes[0] !== 'BOOLEAN') return noMatch(name, argTypes);
        return { type: 'BOOLEAN', create: () => new BoolState(name === 'bool_and') };
      },
    });
  }
  registry.registerAggregate({
    name: 'string_distinct_agg',
    resolve(argTypes, distinct) {
      if (
        distinct ||
        argTypes.length !== 2 ||
        !(TEXT.includes(argTypes[0]!) || argTypes[0] === 'CHAR') ||
        !(TEXT.includes(argTypes[1]!) || argTypes[1] === 'CHAR')
      )
        return noMatch('string_distinct_agg', argTypes);
      return { type: 'STRING', create: () => new DistinctTextAgg() };
    },
  });
  registry.registerAggregate({
    name: 'approx_count_distinct',
    resolve(argTypes, distinct) {
      const t = argTypes[0];
      const ok =
        !distinct &&
        (argTypes.length === 1 || (argTypes.length === 2 && isNumeric(argTypes[1]!))) &&
        t !== undefined &&
        (isNumeric(t) || TEXT.includes(t) || t === 'IPV4' || t === 'UUID');
      if (!ok) return noMatch('approx_count_distinct', argTypes);
      // count_distinct's state: the precision of QuestDB's estimate has nothing to tune in an exact count.
      return { type: 'LONG', create: () => new CountDistinctState() };
    },
  });
}
