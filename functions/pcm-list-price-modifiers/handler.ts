import { pathParameter, queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderFilteredPage } from '../../lib/pagination/index';
import { pricebookUrl } from '../../lib/pricebooks/render';
import { MODIFIER_FILTER, parseEntryFilter } from '../../lib/prices/filter';
import { renderModifier } from '../../lib/prices/render';
import { listModifiers } from '../../lib/prices/service';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_LIST_PRICE_MODIFIERS } from '../routes';

/** GET /pcm/pricebooks/{pricebook_id}/modifiers: a page of the book's price modifiers, oldest first, filtered. */
export const handler = createHandler(
  'pcm-list-price-modifiers',
  PCM_LIST_PRICE_MODIFIERS,
  {},
  async (event) => {
    const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
    const text = queryParameter(event, 'filter');
    const filter = parseEntryFilter(text, MODIFIER_FILTER);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const { modifiers, total } = await listModifiers(event.auth.storeId, pricebookId, page, filter);
    const base = `${pricebookUrl(requestOrigin(event), pricebookId)}/modifiers`;
    return ok(
      renderFilteredPage(modifiers, total, page, base, text, (modifier) =>
        renderModifier(pricebookId, modifier),
      ),
    );
  },
);
