// The files import_files(), export_files(), files() and glob() list (sql/bind-system.ts checked
// the folder is inside a copy root): every regular file under a folder, or those a glob pattern
// matches, in path order. Symbolic links are not followed, and a folder that resolves outside
// its root lists nothing, so no listing leaves the root.
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import type { FileListing } from '../sql/bind-system.js';

/** One listed file: its path as shown, bytes and last change (epoch millis). */
export interface ListedFile {
  readonly path: string;
  readonly size: number;
  readonly modifiedMs: number;
}

export function listFiles(l: FileListing): ListedFile[] {
  if (!staysInside(l.root, l.dir)) return [];
  const found: string[] = [];
  if (l.glob === null) walk(l.dir, '', found);
  else globWalk(l.dir, '', l.glob, 0, found);
  const out: ListedFile[] = [];
  for (const rel of found.sort()) {
    try {
      const st = statSync(join(l.dir, rel));
      out.push({
        path: l.prefix === '' ? rel : joinShown(l.prefix, rel),
        size: st.size,
        modifiedMs: Math.floor(st.mtimeMs),
      });
    } catch {
      // Removed while listing: not listed.
    }
  }
  return out;
}

function joinShown(prefix: string, rel: string): string {
  return prefix.endsWith('/') ? prefix + rel : `${prefix}/${rel}`;
}

/** Whether `dir` (symbolic links resolved) is `root` or inside it; false when either cannot be resolved. */
function staysInside(root: string, dir: string): boolean {
  try {
    const r = relative(realpathSync(root), realpathSync(dir));
    return r === '' || (!r.startsWith('..') && !isAbsolute(r));
  } catch {
    return false;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Every regular file below `dir`, as paths relative to the listing's folder. */
function walk(dir: string, rel: string, out: string[]): void {
  for (const e of entries(dir)) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) walk(join(dir, e.name), r, out);
    else if (e.isFile()) out.push(r);
  }
}

/** The files under `dir` matching segments[k..]: `**` any number of folders, the last segment a file. */
function globWalk(dir: string, rel: string, segments: readonly string[], k: number, out: string[]): void {
  const seg = segments[k]!;
  const last = k === segments.length - 1;
  const at = (name: string): string => (rel === '' ? name : `${rel}/${name}`);
  if (seg === '**') {
    if (last) {
      walk(dir, rel, out);
      return;
    }
    globWalk(dir, rel, segments, k + 1, out);
    for (const e of entries(dir)) if (e.isDirectory()) globWalk(join(dir, e.name), at(e.name), segments, k, out);
    return;
  }
  for (const e of entries(dir)) {
    if (!globMatch(e.name, seg)) continue;
    if (last && e.isFile()) out.push(at(e.name));
    else if (!last && e.isDirectory()) globWalk(join(dir, e.name), at(e.name), segments, k + 1, out);
  }
}

/**
 * Whether a file name matches one glob segment: `*` any run, `?` one character, `[abc]`,
 * `[a-z]`, `[!x]` a set, `\` escapes the next character. Dynamic programming over positions
 * (no backtracking blow-up on patterns like `*a*a*a*b`).
 */
export function globMatch(name: string, pattern: string): boolean {
  const tokens = tokenize(pattern);
  // can[j]: the name so far matches tokens[0..j).
  let can = closure(tokens, [true, ...new Array<boolean>(tokens.length).fill(false)]);
  for (const ch of name) {
    const next = new Array<boolean>(tokens.length + 1).fill(false);
    for (let j = 0; j < tokens.length; j++) {
      if (!can[j]) continue;
      const t = tokens[j]!;
      if (t.kind === 'star') next[j] = true;
      else if (t.test(ch)) next[j + 1] = true;
    }
    can = closure(tokens, next);
  }
  return can[tokens.length]!;
}

/** A star may match nothing: where one can start, the token after it can too. */
function closure(tokens: readonly Token[], can: boolean[]): boolean[] {
  for (let j = 0; j < tokens.length; j++) if (can[j] && tokens[j]!.kind === 'star') can[j + 1] = true;
  return can;
}

type Token = { kind: 'star' } | { kind: 'one'; test: (ch: string) => boolean };

function tokenize(p: string): Token[] {
  const out: Token[] = [];
  const chars = [...p];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) {
      const lit = chars[++i]!;
      out.push({ kind: 'one', test: (ch) => ch === lit });
    } else if (c === '*') {
      if (out.at(-1)?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'one', test: () => true });
    else if (c === '[') {
      const close = chars.indexOf(']', i + 2);
      if (close < 0) {
        out.push({ kind: 'one', test: (ch) => ch === '[' });
        continue;
      }
      const negate = chars[i + 1] === '!';
      const body = chars.slice(i + (negate ? 2 : 1), close);
      i = close;
      out.push({ kind: 'one', test: (ch) => inSet(ch, body) !== negate });
    } else out.push({ kind: 'one', test: (ch) => ch === c });
  }
  return out;
}

function inSet(ch: string, body: readonly string[]): boolean {
  for (let i = 0; i < body.length; i++) {
    if (body[i + 1] === '-' && i + 2 < body.length) {
      if (ch >= body[i]! && ch <= body[i + 2]!) return true;
      i += 2;
    } else if (body[i] === ch) return true;
  }
  return false;
}
