import { errorFields, log } from '../http/log';
import { uuidv7 } from '../ids';
import { countMetric, METRIC } from '../metrics/index';
import { renderRelease } from '../pcm/render';
import { renderCatalogRule, type StoredCatalogRule } from '../pcm/rules';
import { getRelease, releaseTexts } from '../pcm/service';
import { type IntegrationRecord, integrationRepository } from '../store/integration-repository';
import { startedEarly } from '../store/items';
import type { IntegrationEvent } from '../validation/integration';
import { sendDelivery } from './queue';

/**
 * Emitting an event (docs/webhooks.md#events): one delivery message for each enabled integration of the
 * store that observes it, sent to the deliveries queue; nothing waits on a merchant's server. Emitting never
 * fails its caller (a release or a rule is written whatever happens here): a message that cannot be sent is
 * logged (`integration event not queued`) and counted (IntegrationEventsNotQueued, alarmed).
 */

/** The resource an event carries, rendered with the links of the origin an integration was written through. */
export type EventResource = (origin: string) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * The store's integrations, read ahead of an event (beside the write that emits it, saving the round trip
 * after it): the event then goes to those there as the request read them. A failed read fails only the
 * event it is handed to (logged and counted there), never unhandled.
 */
export function integrationsOf(storeId: string): Promise<IntegrationRecord[]> {
  return startedEarly(integrationRepository.list(storeId));
}

export async function emitIntegrationEvent(
  storeId: string,
  trigger: IntegrationEvent,
  resource: EventResource,
  integrations: Promise<IntegrationRecord[]> = integrationRepository.list(storeId),
): Promise<void> {
  try {
    const observers = (await integrations).filter(
      (integration) => integration.enabled && integration.observes.includes(trigger),
    );
    if (observers.length === 0) return;
    const rendered = new Map<string, Promise<Record<string, unknown>>>();
    const dataFor = (origin: string) => {
      let data = rendered.get(origin);
      if (data === undefined) {
        data = Promise.resolve(resource(origin));
        rendered.set(origin, data);
      }
      return data;
    };
    const created_at = new Date().toISOString();
    const results = await Promise.allSettled(
      observers.map(async (integration) =>
        sendDelivery({
          store_id: storeId,
          integration_id: integration.id,
          event_id: uuidv7(),
          trigger,
          payload: { data: await dataFor(integration.origin) },
          created_at,
        }),
      ),
    );
    const failed = results.filter((result) => result.status === 'rejected');
    if (failed.length > 0)
      notQueued(storeId, trigger, failed.length, (failed[0] as PromiseRejectedResult).reason);
  } catch (error) {
    notQueued(storeId, trigger, 1, error);
  }
}

function notQueued(storeId: string, trigger: IntegrationEvent, count: number, error: unknown): void {
  countMetric(METRIC.integrationEventsNotQueued, count);
  log('error', 'integration event not queued', {
    store_id: storeId,
    trigger,
    count,
    error: errorFields(error),
  });
}

/**
 * `catalog-release.created` or `.updated`: the release as `GET …/releases/{release_id}` renders it (to the
 * store's integrations as `integrations` read them, when the caller read them ahead: `integrationsOf`).
 */
export function emitReleaseEvent(
  storeId: string,
  catalogId: string,
  releaseId: string,
  trigger: 'catalog-release.created' | 'catalog-release.updated',
  integrations?: Promise<IntegrationRecord[]>,
): Promise<void> {
  return emitIntegrationEvent(
    storeId,
    trigger,
    async (origin) => {
      const { release, current } = await getRelease(storeId, catalogId, releaseId);
      return renderRelease(release, origin, current, await releaseTexts(release));
    },
    integrations,
  );
}

/** `catalog-release.deleted`, one event per release: `{type, id}` only, as the platform sends deletions. */
export async function emitReleasesDeleted(storeId: string, releaseIds: readonly string[]): Promise<void> {
  if (releaseIds.length === 0) return;
  // One read of the store's integrations for all the events.
  const integrations = integrationsOf(storeId);
  await Promise.all(
    releaseIds.map((id) =>
      emitIntegrationEvent(
        storeId,
        'catalog-release.deleted',
        () => ({ type: 'catalog-release', id }),
        integrations,
      ),
    ),
  );
}

/** `catalog-rule.created` or `.updated`: the rule as the rules API renders it; `.deleted`: `{type, id}`. */
export function emitRuleEvent(
  storeId: string,
  trigger: 'catalog-rule.created' | 'catalog-rule.updated' | 'catalog-rule.deleted',
  rule: StoredCatalogRule | { id: string },
  integrations?: Promise<IntegrationRecord[]>,
): Promise<void> {
  return emitIntegrationEvent(
    storeId,
    trigger,
    (origin) =>
      trigger === 'catalog-rule.deleted'
        ? { type: 'catalog_rule', id: rule.id }
        : renderCatalogRule(rule as StoredCatalogRule, origin),
    integrations,
  );
}
