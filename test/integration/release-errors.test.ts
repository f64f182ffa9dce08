import { handler as getRelease } from '../../functions/pcm-get-release/handler';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';
import { failedRelease, newPcmCatalog } from '../support/pcm-fixtures';

/**
 * A failed release keeps the issues that failed it, however many and long: its record is cut to fit far
 * under DynamoDB's 400 KB item limit, never replaced by an opaque error (a hundred issues with 5 KB paths,
 * written whole, made the record's write fail with a ValidationException).
 */
describe('a failed release with issues too large for its record', () => {
  it('keeps the first issues, cut, and counts them all', async () => {
    const store = await createTestStore();
    const catalogId = await newPcmCatalog(store.store.id, 'Errors', {
      catalog: { name: 'Errors' },
      products: [],
    });
    const releaseId = await failedRelease(store.store.id, catalogId);
    const issues = Array.from({ length: 100 }, (_, n) => ({
      path: `products[${n}].attributes.${'k'.repeat(5000)}`,
      rule: 'schema',
      message: `products[${n}] must not have this attribute`,
    }));
    await pcmRepository.updateRelease(store.store.id, catalogId, releaseId, {
      state: 'FAILED',
      status: 'failed',
      errors: issues,
      errors_total: 100,
    });
    const token = await tokenFor(store);
    const response = await invoke(getRelease, {
      method: 'GET',
      path: `/pcm/catalogs/${catalogId}/releases/${releaseId}`,
      pathParameters: { catalog_id: catalogId, release_id: releaseId },
      headers: bearer(token),
    });
    expect(response.status).toBe(200);
    const meta = response.body.data.meta;
    expect(meta.release_status).toBe('FAILED');
    expect(meta.errors_total).toBe(100);
    expect(meta.errors).toHaveLength(60);
    expect(meta.errors[0]).toEqual({
      status: '422',
      title: 'Unprocessable Entity',
      detail: 'products[0] must not have this attribute',
      source: `products[0].attributes.${'k'.repeat(1000 - 'products[0].attributes.'.length - 1)}…`,
      rule: 'schema',
    });
  });
});
