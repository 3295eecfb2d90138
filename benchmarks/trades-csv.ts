// The trades CSV of bench:import and bench:library: `timestamp,symbol,price,amount,side`, 2M rows
// (~115 MB) by default, from a seeded generator so every run and every benchmark reads the same file.
import { closeSync, openSync, writeSync } from 'node:fs';
import { mulberry32 } from '../test/helpers/prng.js';

const START_US = Date.UTC(2024, 0, 1) * 1000;
/** Mean gap between rows: 2M rows span about 5 days (6 DAY partitions). */
export const MEAN_STEP_US = 216_000;
const BASES = [
  'BTC',
  'ETH',
  'SOL',
  'XRP',
  'ADA',
  'DOT',
  'LTC',
  'BNB',
  'TRX',
  'AVX',
  'LNK',
  'XLM',
  'ATM',
  'UNI',
  'ETC',
  'FIL',
  'APT',
  'ARB',
  'NEAR',
  'DOGE',
];
export const SYMBOLS: readonly string[] = BASES.flatMap((b) => ['USD', 'EUR', 'BTC'].map((q) => b + q)).filter(
  (s) => !s.startsWith('BTCBTC'),
);

const prng = mulberry32;

/**
 * Writes `timestamp,symbol,price,amount,side` with increasing ISO microsecond timestamps ending in Z,
 * a price with 4 decimals and an amount with 6, in blocks of 20k rows (one write each); returns bytes.
 */
export function writeCsv(path: string, rows: number, seed: number): number {
  const rnd = prng(seed);
  const fd = openSync(path, 'w');
  try {
    let bytes = writeSync(fd, 'timestamp,symbol,price,amount,side\n');
    let us = START_US;
    let lastSec = -1;
    let secPrefix = '';
    for (let done = 0; done < rows;) {
      const n = Math.min(20_000, rows - done);
      const lines: string[] = new Array<string>(n);
      for (let k = 0; k < n; k++) {
        us += 1 + Math.floor(rnd() * 2 * MEAN_STEP_US);
        const sec = Math.floor(us / 1e6);
        if (sec !== lastSec) {
          lastSec = sec;
          secPrefix = new Date(sec * 1000).toISOString().slice(0, 20); // 2024-01-01T00:00:00.
        }
        const frac = String(us % 1e6).padStart(6, '0');
        const sym = SYMBOLS[Math.floor(rnd() * SYMBOLS.length)]!;
        lines[k] =
          `${secPrefix}${frac}Z,${sym},${(10 + rnd() * 990).toFixed(4)},${(rnd() * 10).toFixed(6)},${rnd() < 0.5 ? 'buy' : 'sell'}\n`;
      }
      bytes += writeSync(fd, lines.join(''), null, 'latin1'); // ASCII only
      done += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
