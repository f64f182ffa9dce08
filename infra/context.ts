import { type CommerceStackProps, DEFAULT_THROTTLE } from './commerce-stack';
import { ContextError } from './context-error';
import { DEFAULT_ALARM_THRESHOLDS } from './monitoring';

/**
 * The stack's settings from `cdk deploy -c key=value` (or cdk.json's context), checked here so a typo
 * fails the synth with a message instead of deploying defaults: `alarmEmail`, `throttleRateLimit`,
 * `throttleBurstLimit`, `productsWarmWrites`, and one `alarm<Threshold>` per alarm threshold (e.g. `alarmApiP99LatencyMs`).
 * `keys`: every context key given; one that looks like ours but is not one (see `looksLikeOurs`) fails
 * the synth, naming the nearest known key.
 */
export function stackPropsFromContext(
  get: (key: string) => unknown,
  keys: readonly string[] = [],
): Partial<CommerceStackProps> {
  refuseUnknownKeys(keys);
  const props: Partial<CommerceStackProps> = {};
  const number = (key: string): number | undefined => {
    const raw = get(key);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0)
      throw new ContextError(`context ${key} must be a number >= 0, got "${raw}"`);
    return value;
  };
  const email = get('alarmEmail');
  if (email !== undefined && email !== '') {
    if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      throw new ContextError(`context alarmEmail must be an e-mail address, got "${String(email)}"`);
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
  const warmWrites = number('productsWarmWrites');
  if (warmWrites !== undefined) props.productsWarmWrites = warmWrites;
  return props;
}

/** Every context key the stack reads (`corsOrigins` is read by the stack itself). */
export const CONTEXT_KEYS: readonly string[] = [
  'alarmEmail',
  'throttleRateLimit',
  'throttleBurstLimit',
  'corsOrigins',
  'productsWarmWrites',
  ...Object.keys(DEFAULT_ALARM_THRESHOLDS).map((name) => `alarm${name[0]?.toUpperCase()}${name.slice(1)}`),
];

/**
 * A key is taken for one of ours when it starts like ours (`alarm`, `throttle`, `cors`, `products`, any case) or is
 * within 3 edits of one; CDK's own keys (`@aws-cdk/...`, `aws:cdk:...`, lookups with `:`) never are.
 */
function looksLikeOurs(key: string): boolean {
  if (/[:@/]/.test(key)) return false;
  return /^(alarm|throttle|cors|products)/i.test(key) || nearest(key).distance <= 3;
}

function refuseUnknownKeys(keys: readonly string[]): void {
  const unknown = keys.filter((key) => !CONTEXT_KEYS.includes(key) && looksLikeOurs(key));
  if (unknown.length === 0) return;
  throw new ContextError(
    unknown
      .map((key) => `unknown context key ${key}: did you mean ${nearest(key).key}?`)
      .concat(`(known keys: ${CONTEXT_KEYS.join(', ')})`)
      .join('\n'),
  );
}

/** The known key with the fewest edits (case-insensitive Levenshtein distance) from `key`. */
function nearest(key: string): { key: string; distance: number } {
  let best = { key: CONTEXT_KEYS[0] as string, distance: Number.POSITIVE_INFINITY };
  for (const known of CONTEXT_KEYS) {
    const distance = editDistance(key.toLowerCase(), known.toLowerCase());
    if (distance < best.distance) best = { key: known, distance };
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] as number;
}
