import { buildHandler } from '../../functions/create-handler';
import { resetConfig } from '../../lib/config/index';
import { ok } from '../../lib/http/response';
import { resetDocumentClient } from '../../lib/store/client';

describe('createHandler at init', () => {
  const saved = process.env.TOKEN_TTL_SECONDS;
  afterEach(() => {
    if (saved === undefined) delete process.env.TOKEN_TTL_SECONDS;
    else process.env.TOKEN_TTL_SECONDS = saved;
    resetConfig();
    resetDocumentClient();
  });

  it('fails when the container starts, naming the bad variable, instead of on the first request', () => {
    process.env.TOKEN_TTL_SECONDS = 'forever';
    resetConfig();
    resetDocumentClient();
    expect(() => buildHandler('init-test', { auth: 'none' }, {}, async () => ok({}))).toThrow(
      'TOKEN_TTL_SECONDS must be an integer from 60 to 86400, got "forever"',
    );
  });

  it('builds the handler when the configuration is good', () => {
    expect(typeof buildHandler('init-test', { auth: 'none' }, {}, async () => ok({}))).toBe('function');
  });
});
