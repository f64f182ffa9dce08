import { queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { listCatalogRules, parseRuleFilter, renderCatalogRule } from '../../lib/pcm/rules';
import { createHandler } from '../create-handler';
import { PCM_LIST_CATALOG_RULES } from '../routes';

/** GET /pcm/catalogs/rules: the store's catalog rules, oldest first, paginated; `filter=in(id,…)`. */
export const handler = createHandler('pcm-list-catalog-rules', PCM_LIST_CATALOG_RULES, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const filter = queryParameter(event, 'filter');
  const ids = filter === undefined ? undefined : parseRuleFilter(filter);
  const rules = (await listCatalogRules(event.auth.storeId)).filter(
    (rule) => ids === undefined || ids.has(rule.id),
  );
  const origin = requestOrigin(event);
  return ok(
    renderPage(rules, page, `${origin}/pcm/catalogs/rules`, (rule) => renderCatalogRule(rule, origin)),
  );
});
