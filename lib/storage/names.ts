// Validation of table and column names for DDL and the catalog.
//
// SPEC.md lists the characters the CSV import removes from names (white space
// . ? , : \ / \0 ( ) _ + - * ~ %). Those are rejected here too, except `_` in
// table and column names and `-` in table names: QuestDB accepts both, its own
// metadata columns (table_name, ...) and most real schemas use `_`, and
// rejecting them would make ordinary names impossible. Quotes and control
// characters are rejected as well.
import { SvcError } from '../errors/svc-error.js';

const MAX_NAME = 127;
const TABLE_FORBIDDEN = /[\s.?,:\\/\0()+*~%'"\x00-\x1f\x7f\uFEFF]/u;
const COLUMN_FORBIDDEN = /[\s.?,:\\/\0()+\-*~%'"\x00-\x1f\x7f\uFEFF]/u;

export function checkTableName(name: string): void {
  check('table', name, TABLE_FORBIDDEN);
}

export function checkColumnName(name: string): void {
  check('column', name, COLUMN_FORBIDDEN);
}

function check(kind: string, name: string, forbidden: RegExp): void {
  if (name.length === 0) throw new SvcError('BAD_REQUEST', `${kind} name is empty`);
  if (name.length > MAX_NAME) throw new SvcError('BAD_REQUEST', `${kind} name is longer than ${MAX_NAME} characters [name=${name.slice(0, 20)}...]`);
  const m = forbidden.exec(name);
  if (m) {
    const ch = m[0];
    const shown = /[\x00-\x1f\x7f\s\uFEFF]/u.test(ch) ? `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : `'${ch}'`;
    throw new SvcError('BAD_REQUEST', `${kind} name contains an invalid character ${shown} [name=${name}]`, { position: m.index });
  }
}

/** Case-insensitive key for name lookups (names keep their case on disk). */
export function nameKey(name: string): string {
  return name.toLowerCase();
}
