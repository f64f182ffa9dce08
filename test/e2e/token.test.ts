import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  api = await startLocalApi();
  store = await createTestStore();
});
afterAll(() => api.close());

describe('POST /oauth/access_token over HTTP', () => {
  it('issues a client_credentials token to the official SDK', async () => {
    const sdk = sdkClient(api, store);
    const token = await sdk.Authenticate();
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, identifier: 'client_credentials' });
    expect(typeof token.access_token).toBe('string');
  });

  it('issues an implicit token from a form body sent with curl-style encoding', async () => {
    const response = await fetch(`${api.baseUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${store.clientId}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ identifier: 'implicit', token_type: 'Bearer' });
  });

  it('answers unmatched routes like API Gateway', async () => {
    const response = await fetch(`${api.baseUrl}/v2/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
  });
});
