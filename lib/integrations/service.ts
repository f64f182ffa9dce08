import { getConfig } from '../config/index';
import { ApiError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import type { WriteCaller } from '../store/caller-check';
import {
  IntegrationLimitError,
  type IntegrationLogRecord,
  IntegrationNotFoundError,
  type IntegrationRecord,
  IntegrationWriteConflictError,
  integrationRepository,
  MAX_INTEGRATIONS_PER_STORE,
  MAX_LOGS_KEPT,
} from '../store/integration-repository';
import { besideParent } from '../store/items';
import type { IntegrationFields } from '../validation/integration';
import type { IntegrationJob } from './render';
import { checkWebhookTarget, TargetRefusedError } from './target';

/**
 * A store's webhook integrations (docs/webhooks.md): at most MAX_INTEGRATIONS_PER_STORE, each URL checked
 * (form and resolved addresses) before it is stored, and their delivery logs and jobs.
 */

/** Runs a repository call, its refusals becoming the platform's answers. */
async function answered<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof IntegrationNotFoundError) throw new NotFoundError('integration not found');
    if (error instanceof IntegrationLimitError) {
      throw new ApiError(
        422,
        `Integration limit reached: a store has at most ${MAX_INTEGRATIONS_PER_STORE} integrations`,
      );
    }
    if (error instanceof IntegrationWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
}

/** 422 unless the URL may receive webhooks (lib/integrations/target.ts). */
async function checkUrl(url: string): Promise<void> {
  try {
    await checkWebhookTarget(url, { allowLoopback: getConfig().integrationsAllowLoopback });
  } catch (error) {
    if (!(error instanceof TargetRefusedError)) throw error;
    throw new ApiError(422, `data.configuration.url ${error.message}`, {
      source: 'data.configuration.url',
    });
  }
}

export async function integrationOf(storeId: string, integrationId: string): Promise<IntegrationRecord> {
  const integration = await integrationRepository.get(storeId, integrationId);
  if (!integration) throw new NotFoundError('integration not found');
  return integration;
}

export async function createIntegration(
  storeId: string,
  fields: IntegrationFields,
  origin: string,
  caller: WriteCaller,
): Promise<IntegrationRecord> {
  await checkUrl(fields.configuration.url);
  const at = new Date().toISOString();
  return answered(
    integrationRepository.create(
      storeId,
      { id: uuidv7(), ...fields, origin, created_at: at, updated_at: at },
      caller,
    ),
  );
}

/** Changes the fields sent (none: nothing changes); a new `configuration` replaces the old one whole. */
export async function updateIntegration(
  storeId: string,
  integrationId: string,
  changes: Partial<IntegrationFields>,
  origin: string,
  caller: WriteCaller,
): Promise<IntegrationRecord> {
  if (Object.keys(changes).length === 0) return integrationOf(storeId, integrationId);
  if (changes.configuration !== undefined) await checkUrl(changes.configuration.url);
  const at = new Date().toISOString();
  return answered(
    integrationRepository.update(
      storeId,
      integrationId,
      ({ version: _version, ...current }) => ({ ...current, ...changes, origin, updated_at: at }),
      caller,
    ),
  );
}

export function deleteIntegration(
  storeId: string,
  integrationId: string,
  caller: WriteCaller,
): Promise<IntegrationRecord> {
  return answered(integrationRepository.delete(storeId, integrationId, caller));
}

/** The logs of one integration (404 when it is not the store's), newest first. */
export async function integrationLogs(
  storeId: string,
  integrationId: string,
): Promise<IntegrationLogRecord[]> {
  return besideParent(
    integrationOf(storeId, integrationId),
    integrationRepository.listLogs(storeId, integrationId),
  );
}

/** The logs of every integration of the store, newest first, at most MAX_LOGS_KEPT. */
export async function storeLogs(storeId: string): Promise<IntegrationLogRecord[]> {
  const integrations = await integrationRepository.list(storeId);
  const logs = (
    await Promise.all(integrations.map((each) => integrationRepository.listLogs(storeId, each.id)))
  ).flat();
  return logs.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, MAX_LOGS_KEPT);
}

/** An integration's delivery jobs (one per event sent to it), newest first, from its logs. */
export async function integrationJobs(storeId: string, integrationId: string): Promise<IntegrationJob[]> {
  const jobs = new Map<string, IntegrationJob>();
  // Newest log first: a job's entry ends up with its oldest attempt's time, when it began.
  for (const log of await integrationLogs(storeId, integrationId)) {
    jobs.set(log.job_id, { id: log.job_id, trigger: log.trigger, created_at: log.created_at });
  }
  return [...jobs.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The attempts of one delivery job, newest first; 404 when the integration has no such job. */
export async function jobLogs(
  storeId: string,
  integrationId: string,
  jobId: string,
): Promise<IntegrationLogRecord[]> {
  const logs = (await integrationLogs(storeId, integrationId)).filter((log) => log.job_id === jobId);
  if (logs.length === 0) throw new NotFoundError('integration job not found');
  return logs;
}
