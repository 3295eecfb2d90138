// Writes examples/trades.csv, the README tour's data: 6,000 trades of three
// symbols over three days (ts,sym,side,price,amount), from a seeded generator
// so the file is the same on every run. Usage: npm run build && node scripts/make-tour-data.mjs
import { writeFileSync } from 'node:fs';
// The tests' seeded generator, compiled (run `npm run build` first).
import { mulberry32 } from '../dist/test/helpers/prng.js';

const ROWS = 6000;
const START_MS = Date.UTC(2024, 0, 1);
const SPAN_MS = 3 * 24 * 3600 * 1000;
const SYMBOLS = [
  { sym: 'BTC-USD', price: 42000, digits: 2, lot: 0.5 },
  { sym: 'ETH-USD', price: 2300, digits: 2, lot: 5 },
  { sym: 'SOL-USD', price: 100, digits: 3, lot: 50 },
];

const rnd = mulberry32(20240101);
const lines = ['ts,sym,side,price,amount'];
for (let i = 0; i < ROWS; i++) {
  // Evenly spread with jitter, microsecond timestamps, always increasing.
  const us = Math.floor(((i + rnd() * 0.9) * SPAN_MS * 1000) / ROWS);
  const ts =
    new Date(START_MS + Math.floor(us / 1000)).toISOString().slice(0, 23) + String(us % 1000).padStart(3, '0') + 'Z';
  const s = SYMBOLS[Math.floor(rnd() * SYMBOLS.length)];
  s.price *= 1 + (rnd() - 0.5) * 0.004; // a random walk of at most 0.2% a trade
  const side = rnd() < 0.5 ? 'buy' : 'sell';
  const amount = Math.max(0.001, Math.round(rnd() * rnd() * s.lot * 1000) / 1000);
  lines.push(`${ts},${s.sym},${side},${s.price.toFixed(s.digits)},${amount}`);
}
writeFileSync(new URL('../examples/trades.csv', import.meta.url), lines.join('\n') + '\n');
