// The peak loop as the bench's own load gauge: its spread over a run, and how far it moved from first to last rounds.

import { median } from './ort.js';

/** How far the peak may move between a run's first and last rounds, or spread over it, before the run is marked. */
export const MOVE_LIMIT = 0.1;
export const SPREAD_LIMIT = 0.1;
/** Rounds at each end of the run whose median is compared. */
const END_ROUNDS = 5;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];

/** (max - min) / median of some rates: the spread of one comparison's peak rounds. */
export function spread(rates) {
  return (Math.max(...rates) - Math.min(...rates)) / median(rates);
}

/**
 * rates: the peak loop's rate in every round of a run, in the order the rounds ran. Returns the median, the
 * 10th and 90th percentiles and their spread ((p90 - p10) / median), the medians of the first and last
 * END_ROUNDS rounds, moved = last / first - 1, and loaded: |moved| > MOVE_LIMIT (the peak moved during the
 * run) or spread > SPREAD_LIMIT (it varied throughout), with why.
 */
export function peakLoad(rates) {
  const s = [...rates].sort((a, b) => a - b);
  const med = median(s),
    p10 = quantile(s, 0.1),
    p90 = quantile(s, 0.9);
  const n = Math.min(END_ROUNDS, Math.floor(rates.length / 2)) || 1;
  const first = median(rates.slice(0, n)),
    last = median(rates.slice(-n));
  const moved = last / first - 1;
  const spreadV = (p90 - p10) / med;
  const why = [];
  const pc = (v) => (100 * v).toFixed(1);
  if (Math.abs(moved) > MOVE_LIMIT) {
    why.push(`the peak loop moved ${pc(moved)} % between the first and last rounds (limit ${pc(MOVE_LIMIT)} %)`);
  }
  if (spreadV > SPREAD_LIMIT) {
    why.push(`its 10th-90th percentile spread is ${pc(spreadV)} % (limit ${pc(SPREAD_LIMIT)} %)`);
  }
  const loaded = why.length > 0;
  const rounds = rates.length;
  return { rounds, median: med, p10, p90, spread: spreadV, first, last, moved, loaded, why: why.join('; ') };
}

/** The one-line verdict for a targets list. */
export function hostVerdict(p) {
  if (p.loaded) return `LOADED (${p.why}): the readings of this run do not count`;
  return `steady (the peak loop moved ${(100 * p.moved).toFixed(1)} %, spread ${(100 * p.spread).toFixed(1)} %)`;
}

/** The lines a bench prints for peakLoad(rates) (unit: the rates' unit, e.g. 'GFLOPS'). */
export function peakLoadLines(p, unit = 'GFLOPS') {
  const pct = (v) => `${(100 * v).toFixed(1)} %`;
  const lines = [
    `peak loop over this run: median ${p.median.toFixed(1)} ${unit} in ${p.rounds} rounds, 10th-90th percentile ` +
      `${p.p10.toFixed(1)}..${p.p90.toFixed(1)} (spread ${pct(p.spread)}); first ${Math.min(END_ROUNDS, p.rounds)} ` +
      `rounds ${p.first.toFixed(1)}, last ${p.last.toFixed(1)}: moved ${p.moved >= 0 ? '+' : ''}${pct(p.moved)}`,
  ];
  if (p.loaded) lines.push(`LOADED HOST: ${p.why}; this run's readings do not count`);
  return lines;
}
