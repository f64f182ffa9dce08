import sampleRelease from '../catalog/sample-release.json';
import { generateClientSecret as randomSecret } from '../lib/auth/secrets';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { publishDocument } from '../lib/pcm/cli-publish';
import { createCatalogRule } from '../lib/pcm/rules';
import { firstKeyReservation } from '../lib/rate-limit/allowance';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { catalogRepository } from '../lib/store/catalog-repository';
import { storeRepository } from '../lib/store/store-repository';
import { parseNewCatalogRule } from '../lib/validation/catalog-rule';

/** The demo store's fixed ids and credentials: local only, printed by `npm start`, never deployed. */
export const DEMO = {
  storeId: '0190a0c0-0000-7000-8000-000000000001',
  mappingId: '0190a0c0-0000-4000-8000-000000000002',
  keyId: '0190a0c0-0000-7000-8000-000000000003',
  clientId: 'demo0000000000000000000000000000000000cl',
  clientSecret: 'demo-local-only-secret-0000000000000000000000',
  /** The storefront's own key (implicit grants only: its client id is public, its secret unused). */
  storefrontKeyId: '0190a0c0-0000-7000-8000-000000000004',
  storefrontClientId: 'demo0000000000000000000000000000000000sf',
  name: 'Demo store',
} as const;

/** The first product of the sample release that has live children: the demo parent for the catalog route. */
export const DEMO_PARENT_ID: string = (() => {
  const products = sampleRelease.products as {
    id: string;
    attributes: { base_product_id?: string; status?: string };
  }[];
  const parent = products.find((candidate) =>
    products.some((p) => p.attributes.base_product_id === candidate.id && p.attributes.status === 'live'),
  );
  if (!parent) throw new Error('catalog/sample-release.json has no parent with live children');
  return parent.id;
})();

export interface DemoSeed {
  storeId: string;
  mappingId: string;
  clientId: string;
  clientSecret: string;
  storefrontClientId: string;
  created: boolean;
}

/** Creates the demo store, its mapping and key unless they exist (idempotent). */
export async function seedDemo(): Promise<DemoSeed> {
  let created = false;
  if (!(await storeRepository.get(DEMO.storeId, true))) {
    await storeRepository.create({ id: DEMO.storeId, mapping_id: DEMO.mappingId, name: DEMO.name });
    created = true;
  }
  if (!(await applicationKeyRepository.findClient(DEMO.clientId))) {
    await applicationKeyRepository.create(
      DEMO.storeId,
      // The admin key reserves the documented first-key share of the store's default limit (100/s).
      { name: 'Demo key', reserved_rate_limit: firstKeyReservation(100) },
      { id: DEMO.keyId, client_id: DEMO.clientId, client_secret: DEMO.clientSecret },
    );
    created = true;
  }
  if (!(await applicationKeyRepository.findClient(DEMO.storefrontClientId))) {
    await applicationKeyRepository.create(
      DEMO.storeId,
      { name: 'Demo storefront', reserved_rate_limit: 0 },
      { id: DEMO.storefrontKeyId, client_id: DEMO.storefrontClientId, client_secret: randomSecret() },
    );
    created = true;
  }
  // The demo catalog (catalog/sample-release.json), published once, as the API publishes: a catalog of
  // /pcm/catalogs, its document, a release through the publishing workflow. Later runs keep what is there.
  if (!(await catalogRepository.getRegistry(DEMO.storeId))) {
    await publishDemoCatalog();
    created = true;
  }
  return {
    storeId: DEMO.storeId,
    mappingId: DEMO.mappingId,
    clientId: DEMO.clientId,
    clientSecret: DEMO.clientSecret,
    storefrontClientId: DEMO.storefrontClientId,
    created,
  };
}

/**
 * Publishes the sample document as the demo catalog through the publishing workflow, in this process (the
 * local API registers the same runner when it starts), and fails unless the release is PUBLISHED.
 */
async function publishDemoCatalog(): Promise<void> {
  let run: Promise<unknown> | undefined;
  registerLocalWorkflow((input: ReleaseExecutionInput) => {
    run = runWorkflowLocally(input);
    return run;
  });
  // Its rules are the catalog rules API's (manageable under /pcm/catalogs/rules), not the document's.
  const { rules, ...document } = sampleRelease;
  const text = JSON.stringify(document);
  const { catalog } = sampleRelease;
  const outcome = await publishDocument(
    DEMO.storeId,
    { id: catalog.id, name: catalog.name, description: catalog.description },
    async function* () {
      yield Buffer.from(text);
    },
    { localRun: () => run },
  );
  if (outcome.release.state !== 'PUBLISHED') {
    throw new Error(
      `the demo catalog's release ${outcome.release_id} is ${outcome.release.state}: ${JSON.stringify(outcome.release.errors ?? [])}`,
    );
  }
  for (const rule of rules) {
    // As POST /pcm/catalogs/rules takes it (rule names take no spaces: the platform's rule).
    const attributes = parseNewCatalogRule({
      data: {
        type: 'catalog_rule',
        attributes: {
          name: rule.name.toLowerCase().replaceAll(' ', '-'),
          catalog_id: catalog.id,
          channels: rule.channels,
          tags: rule.tags,
          schedules: rule.schedules,
        },
      },
    });
    await createCatalogRule(DEMO.storeId, attributes, undefined);
  }
}
