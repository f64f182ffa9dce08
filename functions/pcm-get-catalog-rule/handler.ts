import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { catalogRuleOf, catalogRuleUrl, renderCatalogRule } from '../../lib/pcm/rules';
import { parseCatalogRuleId } from '../../lib/validation/catalog-rule';
import { createHandler } from '../create-handler';
import { PCM_GET_CATALOG_RULE } from '../routes';

/** GET /pcm/catalogs/rules/{catalog_rule_id}: one catalog rule of the token's store; 404 for any other id. */
export const handler = createHandler('pcm-get-catalog-rule', PCM_GET_CATALOG_RULE, {}, async (event) => {
  const id = parseCatalogRuleId(pathParameter(event, 'catalog_rule_id'));
  const rule = await catalogRuleOf(event.auth.storeId, id);
  const origin = requestOrigin(event);
  return ok({ data: renderCatalogRule(rule, origin), links: { self: catalogRuleUrl(origin, id) } });
});
