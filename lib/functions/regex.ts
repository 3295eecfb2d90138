// Regular expressions of ~, !~ and regexp_replace: RE2 syntax run by re2js, in
// time linear in the text (no backtracking, so no pattern can freeze a request);
// Java forms RE2 would read differently are refused; Java's replacement syntax.
import { RE2JS, type Matcher } from 're2js';
import { SvcError } from '../errors/svc-error.js';
import type { KernelContext } from './registry.js';
import { checkTextSize, utf8Length } from './text-out.js';

const HINT = 'regular expressions are RE2 syntax, matched in linear time';

/**
 * Most instructions of a compiled pattern. Matching is linear in the text, but
 * when RE2's DFA gives up (patterns whose states explode) each character costs
 * a step per live instruction, and one match cannot be interrupted: a 64 KiB
 * text took 0.4 s at 24 instructions, 1.2 s at 1,000, 5 s at 3,000 and a minute
 * for 3,000 characters at 300,000. Any one repetition RE2 allows ({1000}) fits,
 * and so does an alternation of about 200 words.
 */
export const MAX_PROGRAM = 2000;

/** Why RE2 refused a pattern, with what that refusal usually means for a Java (QuestDB) pattern. */
function reason(e: unknown): string {
  const msg = (e instanceof Error ? e.message : String(e)).replace(/^error parsing regexp: /, '');
  let what = '';
  if (/`\\(?:[1-9]|k)/.test(msg)) what = 'backreferences are not supported';
  else if (/`\(\?<?[=!]/.test(msg)) what = 'lookahead and lookbehind are not supported';
  else if (/`\(\?>/.test(msg)) what = 'atomic groups are not supported';
  else if (/nested repetition operator: `[^`]*\+`/.test(msg)) what = 'possessive quantifiers are not supported';
  return what === '' ? `${msg}; ${HINT}` : `${msg}; ${what}: ${HINT}`;
}

/**
 * The Java forms that RE2 would accept with another meaning, refused; \uXXXX
 * (Java, and JavaScript with the u flag) as RE2's \x{XXXX}. Returns the RE2 source.
 */
function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const d = pattern[i + 1];
      if (d === 'Q') {
        // \Q...\E quotes: copied as is
        const e = pattern.indexOf('\\E', i + 2);
        const stop = e < 0 ? pattern.length : e + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (d === 'u' && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) {
        out += `\\x{${pattern.slice(i + 2, i + 6)}}`;
        i += 5;
        continue;
      }
      out += d === undefined ? c : c + d;
      i++;
      continue;
    }
    if (inClass) {
      // Java nests classes ([a[b]] is a union, [a&&[^b]] an intersection); RE2 reads [ and & literally.
      if (c === '[' || (c === '&' && pattern[i + 1] === '&')) {
        throw new SvcError(
          'SQL',
          `invalid regular expression: ${pattern} (nested character classes and class intersection (&&) are not supported at ${i}; ${HINT})`,
        );
      }
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A ] first in a class (after an optional ^) is a literal in RE2; Java agrees.
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i + 1] === ']') {
        out += ']';
        i++;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      // (?U) is Java's Unicode character classes but RE2's ungreedy mode.
      const flags = /^\(\?([a-zA-Z-]*)[:)]/.exec(pattern.slice(i));
      if (flags && flags[1]!.includes('U')) {
        throw new SvcError('SQL', `invalid regular expression: ${pattern} (flag U is not supported; ${HINT})`);
      }
    }
    out += c;
  }
  return out;
}

/** A compiled pattern: search (`test`) and replace-all with a parsed replacement. */
export class Regex {
  readonly pattern: string;
  /** Most work per character of text: RE2's program size (its NFA steps each instruction; its DFA does far less). */
  readonly cost: number;
  /** For test(): without RE2's one-pass engine, so that anchored patterns (^...) use the DFA, about 5x faster for a yes / no. */
  readonly #search: RE2JS;
  readonly #source: string;
  /** For replaceAll(), with the one-pass engine (fast with groups); compiled on first use. */
  #capture: RE2JS | null = null;
  /** One matcher reused for every replaced row (a Matcher per row would be an allocation per row). */
  #matcher: Matcher | null = null;

  /** Throws an SvcError (without a position) when `pattern` is invalid or uses what RE2 refuses. */
  constructor(pattern: string) {
    this.pattern = pattern;
    this.#source = toRe2(pattern);
    try {
      this.#search = RE2JS.compile(this.#source);
    } catch (e) {
      throw new SvcError('SQL', `invalid regular expression: ${pattern} (${reason(e)})`);
    }
    const size = this.#search.programSize();
    if (size > MAX_PROGRAM) {
      throw new SvcError(
        'SQL',
        `invalid regular expression: ${pattern} (too complex: ${size} instructions, at most ${MAX_PROGRAM}; ${HINT})`,
      );
    }
    (this.#search.re2() as unknown as { onepass: unknown }).onepass = null;
    this.cost = Math.max(1, size);
  }

  /** Whether the pattern matches anywhere in `s` (Java's find()). */
  test(s: string): boolean {
    return this.#search.test(s);
  }

  get groupCount(): number {
    return this.#search.groupCount();
  }

  /** Group numbers by name. */
  namedGroups(): Record<string, number> {
    return this.#search.namedGroups();
  }

  /**
   * `s` with every match replaced by `rep` (Java's replaceAll). The result is
   * refused (cairo.sql.string.function.buffer.max.size) as soon as what is built
   * passes the limit, and each search counts towards the statement's deadline:
   * successive searches can rescan the rest of the text.
   */
  replaceAll(s: string, rep: Replacement, kx: KernelContext): string {
    kx.deadline.tick(1 + (s.length * this.cost) / 1024);
    if (!this.#search.test(s)) return s;
    this.#capture ??= RE2JS.compile(this.#source);
    const m = this.#matcher === null ? (this.#matcher = this.#capture.matcher(s)) : this.#matcher.resetMatcherInput(s);
    const max = kx.maxTextBytes;
    let out = '',
      last = 0;
    while (m.find()) {
      const start = m.start(),
        end = m.end();
      out += s.slice(last, start);
      const parts = rep.parts;
      for (let k = 0; k < parts.length; k++) {
        const p = parts[k]!;
        out += typeof p === 'string' ? p : (m.group(p) ?? '');
      }
      last = end;
      // Bytes are at least UTF-16 units: past the limit in units is past it in bytes.
      if (out.length > max) checkTextSize('regexp_replace', out.length + s.length - last, kx);
      kx.deadline.tick(1 + ((s.length - start) * this.cost) / 1024);
    }
    out += s.slice(last);
    checkTextSize('regexp_replace', utf8Length(out), kx);
    return out;
  }
}

/** A replacement text parsed once: literal parts and group numbers. */
export interface Replacement {
  readonly text: string;
  readonly parts: readonly (string | number)[];
}

/**
 * A replacement in Java's syntax (Matcher.appendReplacement, as QuestDB uses):
 * $n a group (further digits while they still name a group), ${name} a named
 * group, a backslash takes the next character literally; everything else is
 * literal. Throws an SvcError for what Java refuses (an unknown group, a lone $ or \).
 */
export function parseReplacement(rep: string, re: Regex): Replacement {
  const parts: (string | number)[] = [];
  const bad = (why: string): SvcError => new SvcError('SQL', `invalid replacement: ${rep} (${why})`);
  let lit = '';
  const groups = re.groupCount;
  for (let i = 0; i < rep.length;) {
    const c = rep[i]!;
    if (c === '\\') {
      if (i + 1 >= rep.length) throw bad('character to be escaped is missing');
      lit += rep[i + 1];
      i += 2;
      continue;
    }
    if (c !== '$') {
      lit += c;
      i++;
      continue;
    }
    i++;
    if (i >= rep.length) throw bad('group index is missing after $');
    let group: number;
    if (rep[i] === '{') {
      const close = rep.indexOf('}', i + 1);
      const name = close < 0 ? '' : rep.slice(i + 1, close);
      if (close < 0 || !/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw bad('a named group reference is ${name}');
      const named = re.namedGroups()[name];
      if (named === undefined) throw bad(`no group named ${name}`);
      group = named;
      i = close + 1;
    } else {
      const d = rep.charCodeAt(i) - 48;
      if (d < 0 || d > 9) throw bad('$ must be followed by a group number or {name}; \\$ is a literal $');
      if (d > groups) throw bad(`no group ${d}`);
      group = d;
      i++;
      for (; i < rep.length; i++) {
        const e = rep.charCodeAt(i) - 48;
        if (e < 0 || e > 9 || group * 10 + e > groups) break;
        group = group * 10 + e;
      }
    }
    if (lit !== '') {
      parts.push(lit);
      lit = '';
    }
    parts.push(group);
  }
  if (lit !== '') parts.push(lit);
  return { text: rep, parts };
}
