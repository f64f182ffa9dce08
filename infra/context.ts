import { type CommerceStackProps, DEFAULT_THROTTLE } from './commerce-stack';
import { DEFAULT_ALARM_THRESHOLDS } from './monitoring';

/**
 * The stack's settings from `cdk deploy -c key=value` (or cdk.json's context), checked here so a typo
 * fails the synth with a message instead of deploying defaults: `alarmEmail`, `throttleRateLimit`,
 * `throttleBurstLimit`, and one `alarm<Threshold>` per alarm threshold (e.g. `alarmApiP99LatencyMs`).
 */
export function stackPropsFromContext(get: (key: string) => unknown): Partial<CommerceStackProps> {
  const props: Partial<CommerceStackProps> = {};
  const number = (key: string): number | undefined => {
    const raw = get(key);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`context ${key} must be a number >= 0, got "${raw}"`);
    return value;
  };
  const email = get('alarmEmail');
  if (email !== undefined && email !== '') {
    if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      throw new Error(`context alarmEmail must be an e-mail address, got "${String(email)}"`);
    props.alarmEmail = email;
  }
  const rateLimit = number('throttleRateLimit');
  const burstLimit = number('throttleBurstLimit');
  if (rateLimit !== undefined || burstLimit !== undefined)
    props.throttle = {
      rateLimit: rateLimit ?? DEFAULT_THROTTLE.rateLimit,
      burstLimit: burstLimit ?? DEFAULT_THROTTLE.burstLimit,
    };
  const thresholds: Record<string, number> = {};
  for (const name of Object.keys(DEFAULT_ALARM_THRESHOLDS)) {
    const value = number(`alarm${name[0]?.toUpperCase()}${name.slice(1)}`);
    if (value !== undefined) thresholds[name] = value;
  }
  if (Object.keys(thresholds).length > 0) props.alarmThresholds = thresholds;
  return props;
}
