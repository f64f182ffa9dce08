import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitRuleEvent, integrationsOf } from '../../lib/integrations/events';
import { deleteCatalogRule } from '../../lib/pcm/rules';
import { parseCatalogRuleId } from '../../lib/validation/catalog-rule';
import { createHandler } from '../create-handler';
import { PCM_DELETE_CATALOG_RULE } from '../routes';

/** DELETE /pcm/catalogs/rules/{catalog_rule_id}: deletes a catalog rule (204); shoppers are re-matched. */
export const handler = createHandler(
  'pcm-delete-catalog-rule',
  PCM_DELETE_CATALOG_RULE,
  {},
  async (event) => {
    const id = parseCatalogRuleId(pathParameter(event, 'catalog_rule_id'));
    // Read beside the write: the event goes to the integrations there as the rule is deleted.
    const integrations = integrationsOf(event.auth.storeId);
    await asWriteCaller(event, (caller) => deleteCatalogRule(event.auth.storeId, id, caller));
    await emitRuleEvent(event.auth.storeId, 'catalog-rule.deleted', { id }, integrations);
    return noContent();
  },
);
