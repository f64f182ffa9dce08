import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { getConfig } from '../config/index';
import { log } from '../http/log';
import { uuidv7 } from '../ids';
import { countMetric, METRIC } from '../metrics/index';
import {
  type IntegrationLogRecord,
  type IntegrationRecord,
  integrationRepository,
} from '../store/integration-repository';
import type { DeliveryMessage } from './queue';
import { type CheckedTarget, checkWebhookTarget, TargetRefusedError } from './target';

/**
 * One delivery attempt of a webhook (docs/webhooks.md#delivery): the integration is read again (a deleted
 * one, a disabled one or one that stopped observing the event gets nothing more), its URL checked again
 * (resolved, every address public) and the request sent to the address checked, with no second lookup in
 * between and no redirect followed. A 2xx answer within the timeout is a success; anything else a failure,
 * retried after retryDelayMs(attempt) until MAX_ATTEMPTS. Every attempt is logged.
 */

/** Attempts of one delivery: the queue's maxReceiveCount; after the last, the message is a dead letter. */
export const MAX_ATTEMPTS = 8;
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 30 * 60_000;
/** Characters of the endpoint's reply a log keeps. */
export const MAX_LOGGED_BODY = 1024;
/** Bytes of the reply read at most: enough for the logged part, never a whole large body. */
const MAX_READ_BYTES = 16 * 1024;
export const USER_AGENT = 'moltin/integrations';

/**
 * The wait after failed attempt `attempt` (1-based): the base (INTEGRATIONS_RETRY_BASE_MS, 30 s), doubled
 * after each attempt, at most MAX_RETRY_DELAY_MS; none after the last (the message goes to the dead letters).
 */
export function retryDelayMs(attempt: number, baseMs = getConfig().integrationsRetryBaseMs): number {
  if (attempt >= MAX_ATTEMPTS) return 0;
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1));
}

/** What became of an attempt: delivered, to be tried again, or dropped (nothing left to deliver to). */
export type AttemptOutcome = 'delivered' | 'retry' | 'dropped';

/** The body POSTed to the endpoint. */
export function deliveryBody(message: DeliveryMessage, integration: IntegrationRecord, attempt: number) {
  return {
    id: message.event_id,
    triggered_by: message.trigger,
    attempt,
    integration: {
      id: integration.id,
      integration_type: integration.integration_type,
      name: integration.name,
      description: integration.description,
    },
    payload: message.payload,
  };
}

interface Reply {
  status: number | null;
  body: string;
  error: string;
}

/** Runs attempt `attempt` of a delivery and logs it. */
export async function deliverAttempt(message: DeliveryMessage, attempt: number): Promise<AttemptOutcome> {
  const integration = await integrationRepository.get(message.store_id, message.integration_id);
  const dropped = !integration
    ? 'deleted'
    : !integration.enabled
      ? 'disabled'
      : integration.observes.includes(message.trigger)
        ? undefined
        : 'no longer observed';
  if (!integration || dropped !== undefined) {
    log('info', 'integration delivery dropped', {
      store_id: message.store_id,
      integration_id: message.integration_id,
      event_id: message.event_id,
      reason: dropped,
    });
    return 'dropped';
  }
  const config = getConfig();
  const started = Date.now();
  let reply: Reply;
  try {
    const target = await checkWebhookTarget(integration.configuration.url, {
      allowLoopback: config.integrationsAllowLoopback,
    });
    reply = await post(
      target,
      JSON.stringify(deliveryBody(message, integration, attempt)),
      {
        'X-Moltin-Integration-Trigger': message.trigger,
        ...(integration.configuration.secret_key
          ? { 'X-Moltin-Secret-Key': integration.configuration.secret_key }
          : {}),
      },
      config.integrationsDeliveryTimeoutMs,
    );
  } catch (error) {
    if (!(error instanceof TargetRefusedError)) throw error;
    reply = { status: null, body: '', error: `refused, not sent: the URL ${error.message}` };
  }
  const succeeded = reply.status !== null && reply.status >= 200 && reply.status < 300;
  const secret = integration.configuration.secret_key;
  const record: IntegrationLogRecord = {
    id: uuidv7(),
    integration_id: integration.id,
    job_id: message.event_id,
    trigger: message.trigger,
    succeeded,
    attempt,
    body: withoutSecret(reply.body, secret).slice(0, MAX_LOGGED_BODY),
    status_code: reply.status,
    error_detail: succeeded
      ? ''
      : withoutSecret(
          reply.error ||
            `Received a status code outside of 2xx range (${reply.status}) - treating webhook as a fail`,
          secret,
        ),
    processing_time: Date.now() - started,
    created_at: new Date(started).toISOString(),
  };
  await integrationRepository.putLog(message.store_id, record);
  countMetric(succeeded ? METRIC.integrationDeliveries : METRIC.integrationDeliveryFailures);
  return succeeded ? 'delivered' : 'retry';
}

/** The reply with the secret taken out, should the endpoint echo it. */
function withoutSecret(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[REDACTED]') : text;
}

/**
 * POSTs `body` to the checked target: connected to its checked address (the lookup answers it, so the
 * TLS certificate is still checked against the host name), no redirects, all of it within `timeoutMs`.
 */
function post(
  target: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Reply> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else callback(null, address, family);
  };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reply: Reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const req = send(
      {
        method: 'POST',
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        lookup: pinned,
        agent: false,
        ...(url.protocol === 'https:' && isIP(hostname) === 0 ? { servername: hostname } : {}),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'Content-Length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        const done = () =>
          finish({
            status: response.statusCode ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
            error: '',
          });
        response.on('data', (chunk: Buffer) => {
          if (bytes < MAX_READ_BYTES) chunks.push(chunk);
          bytes += chunk.length;
          if (bytes >= MAX_READ_BYTES) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({
        status: null,
        body: '',
        error: `no answer within ${timeoutMs} ms - treating webhook as a fail`,
      });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      finish({ status: null, body: '', error: `the request failed: ${error.code ?? error.message}` });
    });
    req.end(body);
  });
}
