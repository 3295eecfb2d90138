// Summaries of one page of a numeric column (its values as asDoubles reads
// them, NULL as NaN) that keyless aggregates take instead of the page's rows
// (AggregateState.takeSummary): computed on any thread, merged in page order.

/** What a page is summarized as: its row count, its non-NULL count, its sum (four-way, NaN with a NULL), its least or greatest non-NULL value (NaN: none). */
export type PageSummaryKind = 'rows' | 'count' | 'sum' | 'min' | 'max';

/**
 * x[0] + ... + x[n-1] in four interleaved partial sums (NaN if any is NaN), the last 1 to 4
 * values added one by one: the tail loop runs on every call, so the optimizing compiler has
 * seen it (a tail run only when n is not a multiple of 4 threw the optimized code away at the
 * last page of every partition).
 */
export function sum4(x: ArrayLike<number>, n: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let i = 0;
  for (; i + 4 < n; i += 4) {
    s0 += x[i]!;
    s1 += x[i + 1]!;
    s2 += x[i + 2]!;
    s3 += x[i + 3]!;
  }
  for (; i < n; i++) s0 += x[i]!;
  return s0 + s1 + (s2 + s3);
}

/** The page's summary of `kind` over x[0..n). Ties keep the first value (min(0, -0) is the one seen first), as a row-by-row update does. */
export function pageSummary(kind: PageSummaryKind, x: ArrayLike<number>, n: number): number {
  switch (kind) {
    case 'rows':
      return n;
    case 'sum':
      return sum4(x, n);
    case 'count': {
      let c = 0;
      for (let i = 0; i < n; i++) if (x[i] === x[i]) c++;
      return c;
    }
    case 'min': {
      let m = NaN;
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        if (v === v && (m !== m || v < m)) m = v;
      }
      return m;
    }
    case 'max': {
      let m = NaN;
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        if (v === v && (m !== m || v > m)) m = v;
      }
      return m;
    }
  }
}
