import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitRuleEvent, integrationsOf } from '../../lib/integrations/events';
import { catalogRuleUrl, createCatalogRule, renderCatalogRule } from '../../lib/pcm/rules';
import { parseNewCatalogRule } from '../../lib/validation/catalog-rule';
import { createHandler } from '../create-handler';
import { PCM_CREATE_CATALOG_RULE } from '../routes';

/** POST /pcm/catalogs/rules: creates a catalog rule (its catalog must be one of the store's). */
export const handler = createHandler(
  'pcm-create-catalog-rule',
  PCM_CREATE_CATALOG_RULE,
  {},
  async (event) => {
    const attributes = parseNewCatalogRule(event.parsedBody);
    // Read beside the write: the event goes to the integrations there as the rule is written.
    const integrations = integrationsOf(event.auth.storeId);
    const rule = await asWriteCaller(event, (caller) =>
      createCatalogRule(event.auth.storeId, attributes, caller),
    );
    await emitRuleEvent(event.auth.storeId, 'catalog-rule.created', rule, integrations);
    const origin = requestOrigin(event);
    return json(
      201,
      { data: renderCatalogRule(rule, origin), links: { self: catalogRuleUrl(origin, rule.id) } },
      { Location: catalogRuleUrl(origin, rule.id) },
    );
  },
);
