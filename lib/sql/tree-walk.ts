// A walk over the plain objects of a syntax tree or a bound plan (arrays entered), for the few
// places that look for a kind of node anywhere in one: a SAMPLE BY's buckets in a plan, the
// tables a plan scans, a call of a given name in a query.

/** Visits every object reachable from `root`, depth first; `visit` returns true to stop; `skip` leaves an object out. */
export function walkTree(
  root: unknown,
  visit: (o: Record<string, unknown>) => boolean | void,
  skip?: (o: object) => boolean,
): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const n = stack.pop();
    if (n === null || typeof n !== 'object' || skip?.(n)) continue;
    if (Array.isArray(n)) {
      for (const x of n) stack.push(x);
      continue;
    }
    const o = n as Record<string, unknown>;
    if (visit(o) === true) return;
    for (const v of Object.values(o)) if (v !== null && typeof v === 'object') stack.push(v);
  }
}
