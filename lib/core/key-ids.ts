// Dense ids (0, 1, 2... in first-seen order) for key values without a JS value
// per row: byte strings hashed and compared on their bytes (text keys are
// their UTF-8), doubles on their bits, and pairs of ids (composite keys), each
// an open-addressing table on typed arrays. Grouping, DISTINCT, LATEST ON and
// count_distinct build on these.
import type { ColumnVector, TextDict } from './column-vector.js';

/** `arr` grown by doubling to at least `need` entries. */
function grownI32(arr: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (arr.length >= need) return arr;
  const next = new Int32Array(Math.max(need, arr.length * 2));
  next.set(arr);
  return next;
}

/** The hash of bytes [lo, hi) of `b` (FNV-1a, then mixed). */
export function hashBytes(b: Uint8Array, lo: number, hi: number): number {
  let h = 0x811c9dc5 ^ (hi - lo);
  for (let j = lo; j < hi; j++) h = Math.imul(h ^ b[j]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

/** Slots of a table: id + 1, 0 for empty; capacity a power of two kept at most half full. */
class Slots {
  slots = new Int32Array(64);
  mask = 63;

  /** Doubles the capacity, re-placing ids 0..size-1 by their hash (`skip`: an id in no slot, NULL's). */
  grow(hashOf: (id: number) => number, size: number, skip = -1): void {
    const cap = this.slots.length * 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    for (let id = 0; id < size; id++) {
      if (id === skip) continue;
      let s = hashOf(id) & this.mask;
      while (this.slots[s] !== 0) s = (s + 1) & this.mask;
      this.slots[s] = id + 1;
    }
  }
}

/**
 * Byte strings -> ids. Keys are copied into one arena; a NULL key (not a byte
 * string) has an id of its own, given when first asked for.
 */
export class BytesIds {
  #t = new Slots();
  #hashes = new Int32Array(16);
  #ends = new Int32Array(16);
  #arena = new Uint8Array(256);
  #used = 0;
  #nullId = -1;
  /** Ids given so far (NULL's included). */
  size = 0;

  /** The id of bytes [lo, hi) of `b`, a new one when they were not seen before. */
  id(b: Uint8Array, lo: number, hi: number): number {
    const h = hashBytes(b, lo, hi);
    const len = hi - lo;
    const slots = this.#t.slots;
    const mask = this.#t.mask;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]!;
      if (e === 0) return this.#add(b, lo, hi, h, s);
      const id = e - 1;
      if (this.#hashes[id] !== h) continue;
      const end = this.#ends[id]!;
      const start = id === 0 ? 0 : this.#ends[id - 1]!;
      if (end - start !== len) continue;
      let j = 0;
      const arena = this.#arena;
      while (j < len && arena[start + j] === b[lo + j]) j++;
      if (j === len) return id;
    }
  }

  /** Key bytes of every id, back to back (TextDict: id k is [ends[k-1], ends[k])). */
  get bytes(): Uint8Array {
    return this.#arena;
  }

  /** Where each id's key bytes end in `bytes`. */
  get ends(): Int32Array {
    return this.#ends;
  }

  /** The id of NULL, or -1 while it has none. */
  peekNullId(): number {
    return this.#nullId;
  }

  /** The id of NULL. */
  nullId(): number {
    if (this.#nullId < 0) this.#nullId = this.#addEntry(0, 0, -1);
    return this.#nullId;
  }

  memory(): number {
    return this.#t.slots.byteLength + this.#hashes.byteLength * 2 + this.#arena.byteLength;
  }

  #add(b: Uint8Array, lo: number, hi: number, h: number, slot: number): number {
    const len = hi - lo;
    if (this.#used + len > this.#arena.length) {
      const next = new Uint8Array(Math.max(this.#used + len, this.#arena.length * 2));
      next.set(this.#arena.subarray(0, this.#used));
      this.#arena = next;
    }
    this.#arena.set(b.subarray(lo, hi), this.#used);
    this.#used += len;
    const id = this.#addEntry(len, h, slot);
    return id;
  }

  /** Records a new id of `len` arena bytes (already copied) and hash `h`; `slot` -1: NULL, in no slot. */
  #addEntry(len: number, h: number, slot: number): number {
    const id = this.size++;
    this.#hashes = grownI32(this.#hashes, this.size);
    this.#ends = grownI32(this.#ends, this.size);
    this.#hashes[id] = h;
    this.#ends[id] = (id === 0 ? 0 : this.#ends[id - 1]!) + len;
    if (slot >= 0) {
      this.#t.slots[slot] = id + 1;
      if (this.size * 2 > this.#t.slots.length) this.#rehash();
    }
    return id;
  }

  #rehash(): void {
    const hashes = this.#hashes;
    this.#t.grow((id) => hashes[id]!, this.size, this.#nullId);
  }
}

const scratchF = new Float64Array(1);
const scratchI = new Int32Array(scratchF.buffer);

function hashDouble(v: number): number {
  scratchF[0] = v;
  let h = Math.imul(scratchI[0]! ^ Math.imul(scratchI[1]!, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Doubles -> ids; -0 is 0, and NaN is the NULL key. */
export class DoubleIds {
  #t = new Slots();
  #keys = new Float64Array(16);
  #nullId = -1;
  size = 0;

  id(v: number): number {
    if (v !== v) return this.nullId();
    if (v === 0) v = 0; // -0 and 0 are one key
    const h = hashDouble(v);
    const slots = this.#t.slots;
    const mask = this.#t.mask;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]!;
      if (e === 0) {
        const id = this.#newId(v);
        slots[s] = id + 1;
        if (this.size * 2 > slots.length) this.#rehash();
        return id;
      }
      if (this.#keys[e - 1] === v) return e - 1;
    }
  }

  nullId(): number {
    if (this.#nullId < 0) this.#nullId = this.#newId(NaN);
    return this.#nullId;
  }

  bytes(): number {
    return this.#t.slots.byteLength + this.#keys.byteLength;
  }

  #newId(v: number): number {
    const id = this.size++;
    if (this.#keys.length < this.size) {
      const next = new Float64Array(this.#keys.length * 2);
      next.set(this.#keys);
      this.#keys = next;
    }
    this.#keys[id] = v;
    return id;
  }

  #rehash(): void {
    const keys = this.#keys;
    this.#t.grow((id) => hashDouble(keys[id]!), this.size, this.#nullId);
  }
}

function hashPair(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Pairs of non-negative ints (ids of two key parts) -> ids. */
export class PairIds {
  #t = new Slots();
  #pairs = new Int32Array(32);
  size = 0;

  id(a: number, b: number): number {
    const h = hashPair(a, b);
    const slots = this.#t.slots;
    const mask = this.#t.mask;
    const pairs = this.#pairs;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]!;
      if (e === 0) {
        const id = this.size++;
        this.#pairs = grownI32(this.#pairs, this.size * 2);
        this.#pairs[2 * id] = a;
        this.#pairs[2 * id + 1] = b;
        slots[s] = id + 1;
        if (this.size * 2 > slots.length)
          this.#t.grow((i) => hashPair(this.#pairs[2 * i]!, this.#pairs[2 * i + 1]!), this.size);
        return id;
      }
      const id = e - 1;
      if (pairs[2 * id] === a && pairs[2 * id + 1] === b) return id;
    }
  }

  bytes(): number {
    return this.#t.slots.byteLength + this.#pairs.byteLength;
  }
}

const encoder = new TextEncoder();

/**
 * Rows of text vectors -> ids of their UTF-8 bytes (one BytesIds), whatever
 * their form: SYMBOL keys and dictionary codes map each dictionary entry once
 * (then one array read per row), other text is hashed row by row in place.
 */
export class TextIds {
  readonly ids = new BytesIds();
  /** The dictionary (symbol list or TextDict) `#map` was made for, and its entries mapped so far. */
  #dict: unknown = null;
  #map = new Int32Array(0);
  #mapped = 0;
  readonly #charBytes = new Uint8Array(3);
  /** False: a dictionary's entries get ids all at once, before rows show them. */
  readonly inRowOrder = false;

  get size(): number {
    return this.ids.size;
  }

  /** out[i] = the id of row i's text for rows [0, n) of `v`. */
  assign(v: ColumnVector, n: number, out: Int32Array): void {
    if (v.kind === 'symbol') {
      const map = this.#symbolMap(v.dict);
      const keys = v.keys;
      for (let i = 0; i < n; i++) out[i] = map[keys[i]! + 1]!;
      return;
    }
    if (v.kind === 'var') {
      if (v.codes !== undefined && v.dict !== undefined) {
        const map = this.#codeMap(v.dict);
        const codes = v.codes;
        for (let i = 0; i < n; i++) out[i] = map[codes[i]!]!;
        return;
      }
      const b = v.bytes,
        offs = v.offsets,
        nulls = v.nulls,
        ids = this.ids;
      if (nulls === null) for (let i = 0; i < n; i++) out[i] = ids.id(b, offs[i]!, offs[i + 1]!);
      else for (let i = 0; i < n; i++) out[i] = nulls[i] ? ids.nullId() : ids.id(b, offs[i]!, offs[i + 1]!);
      return;
    }
    // CHAR: its one UTF-16 unit's UTF-8, written into a scratch buffer (0 is NULL; a lone surrogate is U+FFFD, as TextEncoder makes it).
    const d = v.data;
    const b = this.#charBytes;
    for (let i = 0; i < n; i++) {
      let c = d[i]!;
      if (c === 0) {
        out[i] = this.ids.nullId();
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      let len: number;
      if (c < 0x80) {
        b[0] = c;
        len = 1;
      } else if (c < 0x800) {
        b[0] = 0xc0 | (c >> 6);
        b[1] = 0x80 | (c & 0x3f);
        len = 2;
      } else {
        b[0] = 0xe0 | (c >> 12);
        b[1] = 0x80 | ((c >> 6) & 0x3f);
        b[2] = 0x80 | (c & 0x3f);
        len = 3;
      }
      out[i] = this.ids.id(b, 0, len);
    }
  }

  bytes(): number {
    return this.ids.memory() + this.#map.byteLength;
  }

  /** Slot k + 1 = the id of symbol key k (slot 0: NULL), every entry mapped once per dictionary. */
  #symbolMap(dict: readonly string[]): Int32Array {
    if (this.#dict !== dict) {
      this.#dict = dict;
      this.#mapped = 0;
      this.#map = new Int32Array(dict.length + 1);
    }
    if (this.#mapped < dict.length + 1) {
      if (this.#map.length < dict.length + 1) this.#map = grownI32(this.#map, dict.length + 1);
      if (this.#mapped === 0) this.#map[this.#mapped++] = this.ids.nullId();
      for (; this.#mapped < dict.length + 1; this.#mapped++) {
        const b = encoder.encode(dict[this.#mapped - 1]);
        this.#map[this.#mapped] = this.ids.id(b, 0, b.length);
      }
    }
    return this.#map;
  }

  /** Slot k = the id of code k (0: NULL), every code mapped once per dictionary. */
  #codeMap(dict: TextDict): Int32Array {
    if (this.#dict !== dict) {
      this.#dict = dict;
      this.#mapped = 0;
      this.#map = new Int32Array(dict.size);
    }
    if (this.#mapped < dict.size) {
      if (this.#map.length < dict.size) this.#map = grownI32(this.#map, dict.size);
      if (this.#mapped === 0) this.#map[this.#mapped++] = this.ids.nullId();
      const ends = dict.ends,
        bytes = dict.bytes;
      for (; this.#mapped < dict.size; this.#mapped++) {
        this.#map[this.#mapped] = this.ids.id(bytes, ends[this.#mapped - 1]!, ends[this.#mapped]!);
      }
    }
    return this.#map;
  }
}
