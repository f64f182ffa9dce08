import {
  busyShare,
  cpuTicks,
  cpuWorkload,
  describeNoise,
  measureCpu,
  noisier,
  summariseNoise,
  verdict,
} from '../../bench/noise';

describe('summariseNoise', () => {
  it('measures the spread of node -e 0 as interquartile range over median', () => {
    const quiet = summariseNoise([40, 41, 42, 43, 44, 45, 46, 47], 0.1);
    // Nearest-rank quartiles of 8 samples: 41 and 45; median 43.
    expect(quiet).toEqual({
      node_p50_ms: 43,
      node_spread: 0.093,
      node_max_over_min: 1.18,
      load_per_core: 0.1,
      noisy: false,
    });
  });

  it('calls the machine noisy when node -e 0 spreads over 10 % or the load passes half a core', () => {
    expect(summariseNoise([40, 50, 60, 70, 80, 90, 100, 110], 0.1).noisy).toBe(true);
    expect(summariseNoise([40, 40, 40, 40], 0.51).noisy).toBe(true);
    expect(summariseNoise([40, 40, 40, 40], 0.5).noisy).toBe(false);
  });
});

describe('verdict', () => {
  const quiet = summariseNoise([40, 40, 41, 41], 0.2);
  const busy = summariseNoise([40, 60, 80, 100], 3);

  it('prints ok for a met target whatever the noise', () => {
    expect(verdict(true, quiet)).toBe('ok');
    expect(verdict(true, busy)).toBe('ok');
  });

  it('prints MISSED alone only on a quiet machine (or when noise was not measured)', () => {
    expect(verdict(false, quiet)).toBe('MISSED');
    expect(verdict(false, undefined)).toBe('MISSED');
    expect(verdict(false, busy)).toBe('MISSED (may be noise: node -e 0 spread 67 %, load 3 per core)');
  });
});

describe('noisier and describeNoise', () => {
  it('keeps the worst of the start and end measurements and says whether a miss can be trusted', () => {
    const start = summariseNoise([40, 40, 41, 41], 0.2);
    const end = summariseNoise([40, 40, 41, 41], 2);
    const run = noisier(start, end);
    expect(run).toEqual({ ...start, load_per_core: 2, noisy: true });
    expect(describeNoise(run)).toMatch(
      /^Machine NOISY \(node -e 0 median 40 ms, spread 3 % .*load 2 per core\)/,
    );
    expect(describeNoise(start)).toMatch(/^Machine quiet enough to judge/);
  });
});

describe("the machine's speed", () => {
  it('is kept with the noise, the slower of two measurements, and printed; no verdict depends on it', () => {
    const fast = summariseNoise([40, 40, 41, 41], 0.2, 24.04);
    const slow = summariseNoise([40, 40, 41, 41], 0.2, 41.2);
    expect(fast.cpu_ms).toBe(24);
    expect(fast.noisy).toBe(slow.noisy);
    expect(noisier(fast, slow).cpu_ms).toBe(41.2);
    expect(describeNoise(slow)).toMatch(/; a fixed CPU workload 41.2 ms \(the CPU's speed in a warm process/);
    // A run from before it was measured has none, and neither has the run it is compared with.
    expect(summariseNoise([40], 0.1)).not.toHaveProperty('cpu_ms');
    expect(noisier(fast, summariseNoise([40], 0.1))).not.toHaveProperty('cpu_ms');
    expect(describeNoise(summariseNoise([40], 0.1))).not.toMatch(/CPU workload/);
  });

  it('times a workload that takes measurable time', () => {
    expect(cpuWorkload()).toBeGreaterThan(0.5);
    expect(measureCpu(3)).toBeGreaterThan(0.5);
  });
});

describe('cpuTicks and busyShare', () => {
  const stat = (user: number, idle: number) =>
    `cpu  ${user} 0 100 ${idle} 20 0 5 0 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\n`;

  it('reads busy and total ticks from the first line of /proc/stat (idle and iowait are not busy)', () => {
    expect(cpuTicks(stat(1000, 5000))).toEqual({ busy: 1105, total: 6125 });
    expect(cpuTicks('intr 1 2 3\n')).toBeUndefined();
    expect(cpuTicks('cpu  a b c d e\n')).toBeUndefined();
  });

  it('gives the busy share of all cores between two readings', () => {
    const before = cpuTicks(stat(1000, 5000)) as { busy: number; total: number };
    // 100 ticks busy, 300 idle: a quarter of the machine.
    const after = cpuTicks(stat(1100, 5300)) as { busy: number; total: number };
    expect(busyShare(before, after)).toBe(0.25);
    expect(busyShare(before, before)).toBe(0);
  });
});
