// The one check of table and column names, made before anything touches the
// disk: CREATE TABLE (also AS SELECT), RENAME TABLE, ALTER TABLE ADD/RENAME
// COLUMN, the import and the library's catalog all go through it.
//
// Length: at most MAX_NAME_BYTES bytes of UTF-8. A table's folder is named
// after the table and is the only file name svcdb derives from a name (column
// files are named by column id, dropped tables go to `.trash/<uuid>`, staged
// ones to `.staging-<uuid>`), so 127 bytes leaves every file name well under
// the 255 bytes of ext4, xfs, btrfs and tmpfs, and under eCryptfs's 143.
// QuestDB's default limit (cairo.max.file.name.length) is the same number,
// counted in UTF-16 units: an ASCII name valid there is valid here.
//
// Characters refused in every name: the ones SPEC.md's import removes (white
// space other than U+0020, . ? , : \ / \0 ( ) + * ~ %, and `-` in column names; `_` is kept, and
// `-` in table names, as QuestDB accepts both), quotes, and everything that
// does not show or that changes how the text around it shows: control
// characters (C0, DEL, C1), format characters (Unicode category Cf: the bidi
// embeddings, overrides, isolates and marks U+202A-U+202E, U+2066-U+2069,
// U+200E, U+200F, U+061C, the zero-width space, word joiner and invisible
// operators, soft hyphen, BOM, tag characters), the Hangul filler letters
// (they render as blanks) and unpaired surrogates (not encodable as UTF-8, so
// two names would share a folder). Two format characters are allowed: the
// zero-width non-joiner and joiner (U+200C, U+200D), without which words of
// Persian and the Indic scripts and emoji sequences cannot be written.
import { SvcError } from '../errors/svc-error.js';

export const MAX_NAME_BYTES = 127;

/** Characters no table name may hold, as one regex alternative matching one character (the import's sanitizer removes them). */
export const REFUSED_IN_TABLE_NAMES = String.raw`(?![\u200C\u200D])[\s.?,:\\/()+*~%'"\p{Cc}\p{Cf}\p{Cs}\u115F\u1160\u3164\uFFA0]`;
/** Column names refuse `-` as well. */
export const REFUSED_IN_COLUMN_NAMES = String.raw`(?![\u200C\u200D])[\s.?,:\\/()+\-*~%'"\p{Cc}\p{Cf}\p{Cs}\u115F\u1160\u3164\uFFA0]`;

// A plain space is the one character a name may hold that the import still removes: QuestDB
// accepts "my table" and "my col" written in double quotes (no other white space).
const TABLE_REFUSED = new RegExp(`(?! )${REFUSED_IN_TABLE_NAMES}`, 'u');
const COLUMN_REFUSED = new RegExp(`(?! )${REFUSED_IN_COLUMN_NAMES}`, 'u');
/** What is shown as \uXXXX in messages: every refused character that is not a visible ASCII one. */
// eslint-disable-next-line no-misleading-character-class -- the joiners are excluded one by one, not as a sequence
const UNPRINTABLE = /(?![\u200C\u200D ])[\s\p{Cc}\p{Cf}\p{Cs}\u115F\u1160\u3164\uFFA0]/gu;
/** Code points of a long name shown in its error. */
const SHOWN = 32;

/** Throws a 400 unless `name` may name a table. */
export function checkTableName(name: string): void {
  check('table', name, TABLE_REFUSED);
}

/** Throws a 400 unless `name` may name a column. */
export function checkColumnName(name: string): void {
  check('column', name, COLUMN_REFUSED);
}

function check(kind: string, name: string, refused: RegExp): void {
  if (name.length === 0) throw new SvcError('BAD_REQUEST', `${kind} name is empty`);
  // A UTF-16 unit is at most 3 bytes of UTF-8: short names skip the count.
  const bytes = name.length * 3 <= MAX_NAME_BYTES ? 0 : Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_NAME_BYTES) {
    const head = [...name.slice(0, SHOWN * 2)].slice(0, SHOWN).join('');
    const shown = head.length < name.length ? `${head}...` : head;
    throw new SvcError(
      'BAD_REQUEST',
      `${kind} name is too long: ${bytes} bytes of UTF-8, at most ${MAX_NAME_BYTES} [name=${printable(shown)}]`,
    );
  }
  const m = refused.exec(name);
  if (m) {
    const ch = m[0];
    const shown =
      printable(ch) === ch ? `'${ch}'` : `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new SvcError(
      'BAD_REQUEST',
      `${kind} name contains an invalid character ${shown} at offset ${m.index} [name=${printable(name)}]`,
    );
  }
}

/** The text with invisible and layout-changing characters written as \uXXXX, for messages and logs. */
export function printable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (c) =>
      `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}${c.length > 1 ? `\\u${c.charCodeAt(1).toString(16).toUpperCase().padStart(4, '0')}` : ''}`,
  );
}

/** Case-insensitive key for name lookups (names keep their case on disk). */
export function nameKey(name: string): string {
  return name.toLowerCase();
}
