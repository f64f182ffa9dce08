import type { IntegrationLogRecord, IntegrationRecord } from '../store/integration-repository';

/** The platform's integration resources, legacy flat format (docs/webhooks.md), as the SDK's `Integrations` reads them. */

export const integrationUrl = (origin: string, integrationId: string) =>
  `${origin}/v2/integrations/${integrationId}`;

/** An integration; its `secret_key` is echoed to its store's admins, as the platform does. */
export function renderIntegration(integration: IntegrationRecord, origin: string): Record<string, unknown> {
  return {
    id: integration.id,
    type: 'integration',
    name: integration.name,
    description: integration.description,
    enabled: integration.enabled,
    integration_type: integration.integration_type,
    observes: integration.observes,
    configuration: integration.configuration,
    links: { self: integrationUrl(origin, integration.id) },
    meta: { timestamps: { created_at: integration.created_at, updated_at: integration.updated_at } },
  };
}

/** One delivery attempt. */
export function renderIntegrationLog(log: IntegrationLogRecord): Record<string, unknown> {
  return {
    id: log.id,
    type: 'integration-log',
    succeeded: log.succeeded,
    attempt: log.attempt,
    body: log.body,
    status_code: log.status_code,
    error_detail: log.error_detail,
    processing_time: log.processing_time,
    relationships: {
      integration: { data: { id: log.integration_id, type: 'integration' } },
      job: { data: { id: log.job_id, type: 'integration-job' } },
    },
    meta: { trigger: log.trigger, timestamps: { created_at: log.created_at } },
  };
}

/** A delivery job: one event to one integration, all its attempts. */
export interface IntegrationJob {
  id: string;
  trigger: string;
  created_at: string;
}

export function renderIntegrationJob(job: IntegrationJob): Record<string, unknown> {
  return {
    id: job.id,
    type: 'integration-job',
    meta: { trigger: job.trigger, timestamps: { created_at: job.created_at } },
  };
}
