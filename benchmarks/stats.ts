// Small statistics and the health-check probe shared by the benchmarks.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'undici';

/** Median (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

export interface Latencies {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Health answers other than 200, and failed requests. */
  readonly bad: number;
  /** Probe slots skipped because the previous request was still running. */
  readonly skipped: number;
}

/** GET / on the health port every `intervalMs` (0: back to back), never two in flight, until `stop` settles. */
export async function probeHealth(client: Client, stop: Promise<unknown>, intervalMs: number): Promise<Latencies> {
  const samples: number[] = [];
  let bad = 0;
  let skipped = 0;
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  let next = performance.now();
  while (!stopped) {
    const t0 = process.hrtime.bigint();
    try {
      const res = await client.request({ method: 'GET', path: '/' });
      await res.body.text();
      if (res.statusCode !== 200) bad++;
    } catch {
      bad++;
    }
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    next += intervalMs;
    const now = performance.now();
    // A slow answer does not make the probe burst afterwards: missed slots are skipped.
    if (intervalMs === 0) {
      next = now;
    } else if (next < now) {
      skipped += Math.floor((now - next) / intervalMs) + 1;
      next = now;
    } else {
      await sleep(next - now);
    }
  }
  samples.sort((a, b) => a - b);
  return {
    requests: samples.length,
    p50Ms: quantile(samples, 0.5),
    p99Ms: quantile(samples, 0.99),
    maxMs: samples.at(-1) ?? NaN,
    bad,
    skipped,
  };
}
