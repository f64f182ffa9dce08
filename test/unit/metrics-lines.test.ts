import { emfLine, flushMetrics, METRIC, resetMetrics } from '../../lib/metrics/index';

/**
 * The metric lines: byte for byte what Powertools Metrics wrote for the same counts (the line below was
 * printed by `@aws-lambda-powertools/metrics` 2.36.0 with namespace CommerceApi and service commerce-api),
 * so the stack's alarms, dashboard and any query written against those lines read these.
 */

const POWERTOOLS_LINE =
  '{"_aws":{"Timestamp":1700000000000,"CloudWatchMetrics":[{"Namespace":"CommerceApi","Dimensions":[["service"]],' +
  '"Metrics":[{"Name":"AuthenticationFailures","Unit":"Count"},{"Name":"CatalogCacheMisses","Unit":"Count"}]}]},' +
  '"service":"commerce-api","AuthenticationFailures":2,"CatalogCacheMisses":5}';

describe('metric lines', () => {
  const env = { ...process.env };
  let written: string[];
  const write = process.stdout.write;
  beforeEach(() => {
    resetMetrics();
    written = [];
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
  });
  afterEach(() => {
    process.stdout.write = write;
    process.env = { ...env };
  });

  it('are the lines Powertools Metrics wrote', () => {
    const counts: [typeof METRIC.authenticationFailures | typeof METRIC.catalogCacheMisses, number][] = [
      [METRIC.authenticationFailures, 2],
      [METRIC.catalogCacheMisses, 5],
    ];
    expect(emfLine(counts, 1_700_000_000_000)).toBe(POWERTOOLS_LINE);
  });

  it('go to stdout, one a line, unless POWERTOOLS_METRICS_DISABLED (or, when unset, POWERTOOLS_DEV) turns them off', async () => {
    const cases: [Record<string, string | undefined>, boolean][] = [
      [{ POWERTOOLS_METRICS_DISABLED: 'false' }, true],
      [{ POWERTOOLS_METRICS_DISABLED: undefined, POWERTOOLS_DEV: undefined }, true],
      [{ POWERTOOLS_METRICS_DISABLED: 'true' }, false],
      [{ POWERTOOLS_METRICS_DISABLED: ' TRUE ' }, false],
      [{ POWERTOOLS_METRICS_DISABLED: undefined, POWERTOOLS_DEV: 'true' }, false],
      [{ POWERTOOLS_METRICS_DISABLED: 'false', POWERTOOLS_DEV: 'true' }, true],
    ];
    for (const [settings, writes] of cases) {
      for (const [name, value] of Object.entries(settings)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetMetrics();
      written = [];
      const { countMetric } = await import('../../lib/metrics/index');
      countMetric(METRIC.authenticationFailures);
      expect(await flushMetrics(1_800_000_000_000)).toBe(true);
      expect([settings, written.length]).toEqual([settings, writes ? 1 : 0]);
      if (writes) {
        expect(written[0]?.endsWith('}\n')).toBe(true);
        expect(JSON.parse(written[0] as string)).toMatchObject({
          AuthenticationFailures: 1,
          service: 'commerce-api',
        });
      }
    }
  });
});
