import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitRuleEvent, integrationsOf } from '../../lib/integrations/events';
import { catalogRuleUrl, renderCatalogRule, updateCatalogRule } from '../../lib/pcm/rules';
import { parseCatalogRuleId, parseCatalogRuleUpdate } from '../../lib/validation/catalog-rule';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_CATALOG_RULE } from '../routes';

/** PUT /pcm/catalogs/rules/{catalog_rule_id}: changes only the attributes sent (`id` and `type` required). */
export const handler = createHandler(
  'pcm-update-catalog-rule',
  PCM_UPDATE_CATALOG_RULE,
  {},
  async (event) => {
    const id = parseCatalogRuleId(pathParameter(event, 'catalog_rule_id'));
    const changes = parseCatalogRuleUpdate(event.parsedBody, id);
    // Read beside the write: the event goes to the integrations there as the rule is written.
    const integrations = integrationsOf(event.auth.storeId);
    const rule = await asWriteCaller(event, (caller) =>
      updateCatalogRule(event.auth.storeId, id, changes, caller),
    );
    await emitRuleEvent(event.auth.storeId, 'catalog-rule.updated', rule, integrations);
    const origin = requestOrigin(event);
    return ok({ data: renderCatalogRule(rule, origin), links: { self: catalogRuleUrl(origin, id) } });
  },
);
