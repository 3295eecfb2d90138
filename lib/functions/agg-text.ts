// string_agg(text, delimiter): a group's non-NULL values joined in row order by
// the (constant) delimiter, as QuestDB's; NULL for a group without values.
import type { ColumnVector } from '../core/column-vector.js';
import type { AggregateState, FunctionRegistry } from './registry.js';
import type { SqlType } from '../core/sql-type.js';
import { textAt, textVector } from '../core/vec.js';
import { noMatch } from './signature.js';

class StringAgg implements AggregateState {
  private values: (string | null)[] = [];
  private chars = 0;

  constructor(private readonly type: 'STRING' | 'VARCHAR') {}

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.values.length < groups) this.values.push(null);
    if (n === 0) return;
    const v = args[0]!;
    // The delimiter is a constant: read once per batch.
    const delimiter = textAt(args[1]!, 0) ?? '';
    const values = this.values;
    for (let i = 0; i < n; i++) {
      let s: string | null;
      if (v.kind === 'symbol') {
        const k = v.keys[i]!;
        s = k < 0 ? null : v.dict[k]!;
      } else s = textAt(v, i);
      if (s === null) continue;
      const g = ids[i]!;
      const had = values[g];
      values[g] = had === null || had === undefined ? s : had + delimiter + s;
      this.chars += s.length + (had === null || had === undefined ? 0 : delimiter.length);
    }
  }

  result(groups: number): ColumnVector {
    while (this.values.length < groups) this.values.push(null);
    return textVector(this.type, this.values.slice(0, groups));
  }

  bytes(): number {
    return this.values.length * 8 + this.chars * 2;
  }
}

const TEXT: readonly SqlType[] = ['STRING', 'VARCHAR', 'SYMBOL', 'CHAR', 'NULL'];

export function registerTextAggregates(registry: FunctionRegistry): void {
  registry.registerAggregate({
    name: 'string_agg',
    resolve(argTypes, distinct) {
      if (
        distinct ||
        argTypes.length !== 2 ||
        !TEXT.includes(argTypes[0]!) ||
        !TEXT.includes(argTypes[1]!) ||
        argTypes[1] === 'NULL'
      ) {
        return noMatch('string_agg', argTypes);
      }
      const type = argTypes[0] === 'VARCHAR' ? 'VARCHAR' : 'STRING';
      return { type, create: () => new StringAgg(type) };
    },
  });
}
