// Aggregates keeping one input value per group, in the argument's type: min and
// max (numbers, temporals, TIMESTAMP_NS exactly, CHAR, text in code point order), first / last (row
// order, NULL included, as QuestDB), first_not_null and last_not_null; arg_max and arg_min (the
// value at the greatest or least key).
import { symbolsFromStrings, type ColumnVector } from '../core/column-vector.js';
import type { AggregateState, FunctionRegistry } from './registry.js';
import { isNumeric, isTemporal, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, textAt, textVector } from '../core/vec.js';
import { growF64, growI32, growU8 } from './agg-util.js';
import type { PageSummaryKind } from './page-summary.js';
import { compareStrings } from '../core/utf8.js';
import { comparePairs, isNullPair, nanosVector, pairsOf } from '../core/nanos.js';
import { INT_NULL } from '../core/column-type.js';

type Mode = 'min' | 'max' | 'first' | 'last' | 'first_not_null' | 'last_not_null';

class NumberPick implements AggregateState {
  private values = new Float64Array(0);
  private has = new Uint8Array(0);
  readonly pageSummary?: PageSummaryKind;

  constructor(
    private readonly mode: Mode,
    private readonly type: SqlType,
  ) {
    if (mode === 'min' || mode === 'max') this.pageSummary = mode;
  }

  /** A page's least (greatest) non-NULL value, NaN when it has none: taken as update() takes the page's rows. */
  takeSummary(s: number, _n = 0, group = 0): boolean {
    this.ensure(group + 1);
    if (s === s && (!this.has[group] || (this.mode === 'min' ? s < this.values[group]! : s > this.values[group]!))) {
      this.values[group] = s;
      this.has[group] = 1;
    }
    return true;
  }

  private ensure(groups: number): void {
    this.values = growF64(this.values, groups, NaN);
    this.has = growU8(this.has, groups);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const x = asDoubles(args[0]!);
    const values = this.values,
      has = this.has;
    switch (this.mode) {
      case 'min':
        for (let i = 0; i < n; i++) {
          const v = x[i]!,
            g = ids[i]!;
          if (v === v && (!has[g] || v < values[g]!)) {
            values[g] = v;
            has[g] = 1;
          }
        }
        break;
      case 'max':
        for (let i = 0; i < n; i++) {
          const v = x[i]!,
            g = ids[i]!;
          if (v === v && (!has[g] || v > values[g]!)) {
            values[g] = v;
            has[g] = 1;
          }
        }
        break;
      case 'first':
        for (let i = 0; i < n; i++) {
          const g = ids[i]!;
          if (!has[g]) {
            values[g] = x[i]!;
            has[g] = 1;
          }
        }
        break;
      case 'last':
        for (let i = 0; i < n; i++) {
          const g = ids[i]!;
          values[g] = x[i]!;
          has[g] = 1;
        }
        break;
      case 'first_not_null':
        for (let i = 0; i < n; i++) {
          const v = x[i]!,
            g = ids[i]!;
          if (v === v && !has[g]) {
            values[g] = v;
            has[g] = 1;
          }
        }
        break;
      case 'last_not_null':
        for (let i = 0; i < n; i++) {
          const v = x[i]!;
          if (v === v) {
            const g = ids[i]!;
            values[g] = v;
            has[g] = 1;
          }
        }
        break;
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    return fromDoubles(this.type, this.values.slice(0, groups));
  }

  bytes(): number {
    return this.values.byteLength + this.has.byteLength;
  }
}

/** TIMESTAMP_NS: the picked values as exact int64 pairs (doubles cannot order nanoseconds). */
class NanosPick implements AggregateState {
  private pairs = new Int32Array(0);
  private has = new Uint8Array(0);

  constructor(private readonly mode: Mode) {}

  private ensure(groups: number): void {
    if (this.pairs.length < 2 * groups) {
      const next = new Int32Array(Math.max(2 * groups, this.pairs.length * 2));
      next.set(this.pairs);
      for (let j = this.pairs.length; j < next.length; j += 2) next[j + 1] = INT_NULL;
      this.pairs = next;
    }
    this.has = growU8(this.has, groups);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const p = pairsOf(args[0]!),
      out = this.pairs,
      has = this.has,
      mode = this.mode;
    for (let i = 0; i < n; i++) {
      const g = ids[i]!;
      const isNull = isNullPair(p, i);
      let take: boolean;
      switch (mode) {
        case 'min':
          take = !isNull && (!has[g] || comparePairs(p, i, out, g) < 0);
          break;
        case 'max':
          take = !isNull && (!has[g] || comparePairs(p, i, out, g) > 0);
          break;
        case 'first':
          take = !has[g];
          break;
        case 'last':
          take = true;
          break;
        case 'first_not_null':
          take = !isNull && !has[g];
          break;
        case 'last_not_null':
          take = !isNull;
          break;
      }
      if (take) {
        out[2 * g] = p[2 * i]!;
        out[2 * g + 1] = p[2 * i + 1]!;
        has[g] = 1;
      }
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    return nanosVector(this.pairs.slice(0, 2 * groups));
  }

  bytes(): number {
    return this.pairs.byteLength + this.has.byteLength;
  }
}

class TextPick implements AggregateState {
  private values: (string | null)[] = [];
  private has = new Uint8Array(0);
  /** Batch number in which a group was last visited (last / last_not_null walk rows backwards). */
  private stamp = new Int32Array(0);
  private batch = 0;
  private chars = 0;
  /** Symbol min / max: the best key of each group in the current batch, and the dictionary's sort ranks. */
  private best = new Int32Array(0);
  private rank = new Int32Array(0);
  private rankDict: readonly string[] | null = null;

  constructor(
    private readonly mode: Mode,
    private readonly type: SqlType,
  ) {}

  private ensure(groups: number): void {
    while (this.values.length < groups) this.values.push(null);
    this.has = growU8(this.has, groups);
    this.stamp = growI32(this.stamp, groups);
    this.best = growI32(this.best, groups);
  }

  private set(g: number, s: string | null): void {
    this.values[g] = s;
    this.has[g] = 1;
    if (s) this.chars += s.length;
  }

  /** min / max over a symbol column: the best key per group by dictionary rank, then one string compare per group. */
  private symbolExtreme(ids: Int32Array, v: Extract<ColumnVector, { kind: 'symbol' }>, n: number): void {
    if (this.rankDict !== v.dict || this.rank.length !== v.dict.length) {
      const order = Array.from(v.dict, (_, k) => k).sort((a, b) => compareStrings(v.dict[a]!, v.dict[b]!));
      this.rank = new Int32Array(v.dict.length);
      order.forEach((k, r) => {
        this.rank[k] = r;
      });
      this.rankDict = v.dict;
    }
    const rank = this.rank,
      sign = this.mode === 'min' ? 1 : -1;
    const b = ++this.batch;
    const touched = new Int32Array(n);
    let t = 0;
    for (let i = 0; i < n; i++) {
      const k = v.keys[i]!;
      if (k < 0) continue;
      const g = ids[i]!;
      if (this.stamp[g] !== b) {
        this.stamp[g] = b;
        this.best[g] = k;
        touched[t++] = g;
      } else if ((rank[k]! - rank[this.best[g]!]!) * sign < 0) this.best[g] = k;
    }
    for (let j = 0; j < t; j++) {
      const g = touched[j]!;
      const s = v.dict[this.best[g]!]!;
      if (!this.has[g] || compareStrings(s, this.values[g]!) * sign < 0) this.set(g, s);
    }
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const v = args[0]!;
    const has = this.has;
    const mode = this.mode;
    if (v.kind === 'symbol' && (mode === 'min' || mode === 'max')) {
      this.symbolExtreme(ids, v, n);
      return;
    }
    // Symbols read their dictionary's strings (no decoding); other text is decoded only when needed.
    const at =
      v.kind === 'symbol'
        ? (i: number): string | null => {
            const k = v.keys[i]!;
            return k < 0 ? null : v.dict[k]!;
          }
        : (i: number) => textAt(v, i);
    if (mode === 'last' || mode === 'last_not_null') {
      const b = ++this.batch;
      for (let i = n - 1; i >= 0; i--) {
        const g = ids[i]!;
        if (this.stamp[g] === b) continue;
        const s = at(i);
        if (s === null && mode === 'last_not_null') continue;
        this.stamp[g] = b;
        this.set(g, s);
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const g = ids[i]!;
      if (mode === 'first') {
        if (!has[g]) this.set(g, at(i));
        continue;
      }
      if (mode === 'first_not_null' && has[g]) continue;
      const s = at(i);
      if (s === null) continue;
      if (!has[g] || mode === 'first_not_null') {
        this.set(g, s);
        continue;
      }
      const c = compareStrings(s, this.values[g]!);
      if (mode === 'min' ? c < 0 : c > 0) this.set(g, s);
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    const vals = this.values.slice(0, groups);
    if (this.type === 'SYMBOL') return symbolsFromStrings(vals);
    return textVector(this.type === 'VARCHAR' ? 'VARCHAR' : 'STRING', vals);
  }

  bytes(): number {
    return (
      this.values.length * 8 +
      this.chars * 2 +
      this.has.byteLength +
      this.stamp.byteLength +
      this.best.byteLength +
      this.rank.byteLength
    );
  }
}

const TEXT: readonly SqlType[] = ['STRING', 'VARCHAR', 'SYMBOL'];

/**
 * arg_max(value, key) / arg_min(value, key): per group, the value of the row whose key is the
 * greatest (least), as QuestDB has them: a row with a NULL key is skipped, the first row with the
 * extreme key wins a tie, and its value is taken as it is (NULL included). NULL with no keyed row.
 */
class ArgPick implements AggregateState {
  private keys = new Float64Array(0);
  private numbers = new Float64Array(0);
  private texts: (string | null)[] = [];
  private readonly text: boolean;

  constructor(
    private readonly max: boolean,
    private readonly type: SqlType,
  ) {
    this.text = TEXT.includes(type);
  }

  private ensure(groups: number): void {
    this.keys = growF64(this.keys, groups, NaN);
    if (this.text) while (this.texts.length < groups) this.texts.push(null);
    else this.numbers = growF64(this.numbers, groups, NaN);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const v = args[0]!;
    const k = asDoubles(args[1]!);
    const x = this.text ? null : asDoubles(v);
    const keys = this.keys,
      max = this.max;
    for (let i = 0; i < n; i++) {
      const key = k[i]!;
      if (key !== key) continue;
      const g = ids[i]!,
        best = keys[g]!;
      if (best === best && (max ? key <= best : key >= best)) continue;
      keys[g] = key;
      if (x === null) this.texts[g] = textAt(v, i);
      else this.numbers[g] = x[i]!;
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    if (!this.text) return fromDoubles(this.type, this.numbers.slice(0, groups));
    const vals = this.texts.slice(0, groups);
    if (this.type === 'SYMBOL') return symbolsFromStrings(vals);
    return textVector(this.type === 'VARCHAR' ? 'VARCHAR' : 'STRING', vals);
  }

  bytes(): number {
    let chars = 0;
    for (const t of this.texts) chars += t === null ? 0 : t.length;
    return this.keys.byteLength + this.numbers.byteLength + this.texts.length * 8 + chars * 2;
  }
}

export function registerPickAggregates(registry: FunctionRegistry): void {
  for (const name of ['arg_max', 'arg_min'] as const)
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        const [v, k] = argTypes as [SqlType, SqlType];
        const keyOk = (isNumeric(k) || isTemporal(k)) && k !== 'TIMESTAMP_NS';
        const valueOk = ((isNumeric(v) || isTemporal(v)) && v !== 'TIMESTAMP_NS') || v === 'CHAR' || TEXT.includes(v);
        if (argTypes.length !== 2 || distinct || !keyOk || !valueOk)
          return `there is no matching function \`${name}\` with the argument types: (${argTypes.join(', ')})`;
        return { type: v, create: () => new ArgPick(name === 'arg_max', v) };
      },
    });
  const modes: Mode[] = ['min', 'max', 'first', 'last', 'first_not_null', 'last_not_null'];
  for (const mode of modes) {
    registry.registerAggregate({
      name: mode,
      resolve(argTypes) {
        const t = argTypes[0]!;
        const ordered = mode === 'min' || mode === 'max';
        if (argTypes.length === 1 && t === 'TIMESTAMP_NS') return { type: t, create: () => new NanosPick(mode) };
        const numberLike =
          isNumeric(t) || isTemporal(t) || t === 'CHAR' || (!ordered && (t === 'BOOLEAN' || t === 'IPV4'));
        if (argTypes.length !== 1 || !(numberLike || TEXT.includes(t) || t === 'NULL')) {
          return `there is no matching function \`${mode}\` with the argument types: (${argTypes.join(', ')})`;
        }
        const type: SqlType = t === 'NULL' ? 'DOUBLE' : t;
        return { type, create: () => (TEXT.includes(type) ? new TextPick(mode, type) : new NumberPick(mode, type)) };
      },
    });
  }
}
