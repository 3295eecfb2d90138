// Aggregates over a group's values taken as a whole: mode (the most frequent non-NULL value, the
// first of a tie as met; BOOLEAN ties go to true, as QuestDB's page says), bool_and / bool_or
// (a BOOLEAN is never NULL in QuestDB: bool_and is true when no row is false, bool_or when one is
// true), string_distinct_agg (the distinct non-NULL texts in the order met, joined by the
// delimiter; NULL without any) and approx_count_distinct (the distinct non-NULL values counted
// exactly: an exact count is within any error bound QuestDB's HyperLogLog estimate has).
import { symbolsFromStrings, type ColumnVector } from '../core/column-vector.js';
import { isNumeric, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, textAt, textVector } from '../core/vec.js';
import { renderAt } from '../core/render.js';
import type { AggregateState, FunctionRegistry } from './registry.js';
import { noMatch } from './signature.js';

/** mode over numbers (by value) or text (by string): counts per group, the first value to reach the top count wins. */
class ModeState implements AggregateState {
  readonly #counts: Array<Map<number | string, number>> = [];
  #entries = 0;

  constructor(private readonly type: SqlType) {}

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#counts.length < groups) this.#counts.push(new Map());
    const v = args[0]!;
    const text = !isNumeric(this.type) && this.type !== 'BOOLEAN';
    const nums = text ? null : asDoubles(v);
    for (let i = 0; i < n; i++) {
      let key: number | string | null;
      if (nums !== null) {
        const x = nums[i]!;
        key = x === x ? x : null;
      } else key = textAt(v, i);
      if (key === null) continue;
      const m = this.#counts[ids[i]!]!;
      const c = m.get(key);
      if (c === undefined) this.#entries++;
      m.set(key, (c ?? 0) + 1);
    }
  }

  result(groups: number): ColumnVector {
    const best: Array<number | string | null> = [];
    for (let g = 0; g < groups; g++) {
      const m = this.#counts[g];
      let top: number | string | null = null;
      let count = 0;
      if (m !== undefined) {
        for (const [k, c] of m) {
          // Maps iterate in insertion order: a later value wins only with more rows; BOOLEAN ties go to true.
          if (c > count || (c === count && this.type === 'BOOLEAN' && k === 1)) {
            top = k;
            count = c;
          }
        }
      }
      best.push(top);
    }
    if (this.type === 'BOOLEAN') {
      const out = new Uint8Array(groups);
      for (let g = 0; g < groups; g++) out[g] = best[g] === 1 ? 1 : 0;
      return { kind: 'fixed', type: 'BOOLEAN', data: out };
    }
    if (isNumeric(this.type))
      return fromDoubles(
        this.type,
        Float64Array.from(best, (x) => (x === null ? NaN : (x as number))),
      );
    const strings = best as Array<string | null>;
    if (this.type === 'SYMBOL') return symbolsFromStrings(strings);
    return textVector(this.type === 'VARCHAR' ? 'VARCHAR' : 'STRING', strings);
  }

  bytes(): number {
    return this.#counts.length * 64 + this.#entries * 48;
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
  readonly #sets: Array<Set<string>> = [];
  #delimiter: string | null = null;
  #chars = 0;

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#sets.length < groups) this.#sets.push(new Set());
    if (n === 0) return;
    this.#delimiter ??= textAt(args[1]!, 0) ?? '';
    const v = args[0]!;
    for (let i = 0; i < n; i++) {
      const s = textAt(v, i);
      if (s === null) continue;
      const set = this.#sets[ids[i]!]!;
      if (!set.has(s)) {
        set.add(s);
        this.#chars += s.length;
      }
    }
  }

  result(groups: number): ColumnVector {
    const out: Array<string | null> = [];
    for (let g = 0; g < groups; g++) {
      const set = this.#sets[g];
      out.push(set === undefined || set.size === 0 ? null : [...set].join(this.#delimiter ?? ''));
    }
    return textVector('STRING', out);
  }

  bytes(): number {
    return this.#sets.length * 64 + this.#chars * 2 + 48;
  }
}

/** approx_count_distinct(x[, precision]): the exact count of distinct non-NULL values per group (other types by their text). */
class DistinctCount implements AggregateState {
  readonly #sets: Array<Set<number | string>> = [];
  #entries = 0;

  constructor(private readonly text: boolean) {}

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#sets.length < groups) this.#sets.push(new Set());
    const v = args[0]!;
    const nums = this.text ? null : asDoubles(v);
    for (let i = 0; i < n; i++) {
      let key: number | string | null;
      if (nums !== null) {
        const x = nums[i]!;
        key = x === x ? x : null;
      } else key = renderAt(v, i);
      if (key === null) continue;
      const set = this.#sets[ids[i]!]!;
      const before = set.size;
      set.add(key);
      this.#entries += set.size - before;
    }
  }

  result(groups: number): ColumnVector {
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) out[g] = this.#sets[g]?.size ?? 0;
    return fromDoubles('LONG', out);
  }

  bytes(): number {
    return this.#sets.length * 64 + this.#entries * 40;
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
      return { type: 'LONG', create: () => new DistinctCount(!isNumeric(t)) };
    },
  });
}
