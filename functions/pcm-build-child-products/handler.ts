import { startChildProductsBuild } from '../../lib/builds/links';
import { pathParameter } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderJob } from '../../lib/jobs/render';
import { parseBuildRequest, parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_BUILD_CHILD_PRODUCTS } from '../routes';

/**
 * POST /pcm/products/{product_id}/build: 201 with a `child-products` job, which builds the product's
 * children later, outside this request (poll GET /pcm/jobs/{job_id}).
 */
export const handler = createHandler(
  'pcm-build-child-products',
  PCM_BUILD_CHILD_PRODUCTS,
  {},
  async (event, context) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    parseBuildRequest(event.parsedBody);
    const job = await asWriteCaller(event, (caller) =>
      startChildProductsBuild(event.auth.storeId, productId, context.awsRequestId, caller),
    );
    return json(201, { data: renderJob(job) });
  },
);
