// A growable byte buffer with little-endian and varint writers: the scratch
// space the Parquet encoders write pages, levels and the footer into. Reused
// between pages (reset), so encoding allocates only when a page outgrows it.

export class ByteBuilder {
  buf: Uint8Array;
  length = 0;
  private view: DataView;

  constructor(capacity = 1 << 16) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  reset(): void {
    this.length = 0;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    if (this.length >= this.buf.length) this.ensure(1);
    this.buf[this.length++] = b;
  }

  bytes(src: Uint8Array, from = 0, to = src.length): void {
    const n = to - from;
    this.ensure(n);
    this.buf.set(src.subarray(from, to), this.length);
    this.length += n;
  }

  i32le(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }

  u32be(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, v, false);
    this.length += 4;
  }

  /** Unsigned LEB128 of a non-negative integer up to 2^53. */
  uvarint(v: number): void {
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  /** Patches a little-endian int32 written earlier. */
  setI32le(at: number, v: number): void {
    this.view.setInt32(at, v, true);
  }

  /** A view of the bytes written so far (valid until the next write or reset). */
  view8(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** A copy of the bytes written so far. */
  copy(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}
