/** An empty stand-in for `@aws-lambda-powertools/metrics` (bench/metrics-cost.ts): same calls, no work. */
export const MetricUnit = { Count: 'Count' } as const;

export class Metrics {
  addMetric(_name: string, _unit: string, _value: number): void {}
  hasStoredMetrics(): boolean {
    return false;
  }
  publishStoredMetrics(): void {}
}
