import fc from 'fast-check';
import { ROUTES, type RouteDefinition } from '../functions/routes';
import { MAX_DOCUMENT_BYTES } from '../lib/http/middleware';
import {
  CATALOG_RULE_DESCRIPTION_MAX,
  CATALOG_RULE_LIST_MAX,
  CATALOG_RULE_NAME_MAX,
} from '../lib/validation/catalog-rule';
import { CURRENCY_FORMAT_MAX, CURRENCY_SEPARATOR_MAX } from '../lib/validation/currency';
import { FILE_LOCATION_MAX } from '../lib/validation/file';
import { HIERARCHY_NAME_MAX } from '../lib/validation/hierarchy';
import { OBSERVABLE_EVENTS, SECRET_KEY_MAX, URL_MAX } from '../lib/validation/integration';
import { CATALOG_DESCRIPTION_MAX, CATALOG_NAME_MAX, MAX_HIERARCHY_IDS } from '../lib/validation/pcm-catalog';
import { AMOUNT_MAX, MAX_ATTRIBUTE_KEYS, MAX_TIERS } from '../lib/validation/price';
import {
  PRICEBOOK_DESCRIPTION_MAX,
  PRICEBOOK_EXTERNAL_REF_MAX,
  PRICEBOOK_NAME_MAX,
} from '../lib/validation/pricebook';
import { MODIFIER_TYPES, VARIATION_NAME_MAX } from '../lib/validation/variation';
import {
  authorization,
  byteLimitString,
  CROSS_SHRINK,
  encodeKeepingPlaceholders,
  type FuzzBody,
  type FuzzRequest,
  filterQuery,
  formBody,
  ignoredBody,
  includeQuery,
  type Json,
  joinQuery,
  jsonBody,
  junkQueryParts,
  keyFilterQuery,
  miscHeaders,
  type Part,
  pageQuery,
  segment,
  shopperHeaders,
  unicodeString,
} from './arbitraries';
import { CATALOG, FUZZ_DOCUMENT, ref } from './world';

/** The parts of one route's requests; each `Part` gives valid values and any values. */
interface RouteParts {
  auth: Part<string | undefined>;
  params?: Record<string, Part<string>>;
  query?: Part<string[]>[];
  headers?: Part<Record<string, string>>;
  body?: Part<FuzzBody | undefined>;
}

/** A route's requests: a quarter entirely valid, the rest with any part valid or broken. */
function requests(parts: RouteParts): fc.Arbitrary<FuzzRequest> {
  const build = (pick: 'valid' | 'any') =>
    fc
      .record({
        auth: parts.auth[pick],
        authName: fc.constantFrom('authorization', 'Authorization'),
        params: fc.record(
          Object.fromEntries(Object.entries(parts.params ?? {}).map(([name, part]) => [name, part[pick]])),
        ),
        query: fc.tuple(
          ...(parts.query ?? []).map((part) => part[pick]),
          pick === 'valid'
            ? fc.constant<string[]>([])
            : fc.oneof(CROSS_SHRINK, { weight: 4, arbitrary: fc.constant<string[]>([]) }, junkQueryParts),
        ),
        order: fc.nat(),
        shopper: parts.headers?.[pick] ?? fc.constant({}),
        misc: pick === 'valid' ? fc.constant({}) : fc.option(miscHeaders, { nil: {}, freq: 2 }),
        body: (parts.body ?? ignoredBody)[pick],
      })
      .map(({ auth, authName, params, query, order, shopper, misc, body }): FuzzRequest => {
        const headers: Record<string, string> = { ...misc, ...shopper };
        if (auth !== undefined) headers[authName] = auth;
        if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
        return { params, query: joinQuery(query, order), headers, body };
      });
  return fc.oneof(
    CROSS_SHRINK,
    { weight: 1, arbitrary: build('valid') },
    { weight: 3, arbitrary: build('any') },
  );
}

const ADMIN = authorization(['adminToken']);
const SHOPPER = authorization(['implicitToken', 'adminToken']);
/** The token endpoint takes no token: a correct client sends none, others send anything. */
const PUBLIC: Part<string | undefined> = { valid: fc.constant(undefined), any: ADMIN.any };

const keyName = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,30}$/),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => (s.trim() === '' ? `k${s}` : s)),
  fc.constantFrom('😀'.repeat(255), 'a'.repeat(255), `${'é'.repeat(254)}x`),
);
const reserved = fc.constantFrom(0, 0, 0, 1, 2);
const readOnlyKeyFields = fc.option(
  fc.constant({ id: ref('ownKeyId'), client_id: 'abc', client_secret: 'x'.repeat(43), meta: {} }),
  { nil: {} },
);

const newKeyBody = fc
  .record({ name: keyName, reserved: fc.option(reserved, { nil: undefined }), extra: readOnlyKeyFields })
  .map(({ name, reserved: limit, extra }) => ({
    data: {
      type: 'application_key',
      name,
      ...(limit === undefined ? {} : { reserved_rate_limit: limit }),
      ...extra,
    },
  }));

const keyUpdateBody = fc
  .oneof(
    fc.record({ name: keyName }),
    fc.record({ reserved_rate_limit: reserved }),
    fc.record({ name: keyName, reserved_rate_limit: reserved }),
  )
  .map((fields) => ({ data: { type: 'application_key', ...fields } }));

const prefix = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,20}[A-Za-z0-9]$/) },
  { weight: 1, arbitrary: fc.constantFrom(ref('ownPrefix'), ref('otherPrefix'), ref('otherPrefixUpper')) },
  { weight: 1, arbitrary: fc.constantFrom(`a${'-'.repeat(61)}b`, 'x'.repeat(63), 'Ab') },
);
const mappingBody = fc
  .record({
    prefix,
    readOnly: fc.option(
      fc.record({
        id: fc.constantFrom(ref('mappingId'), ref('otherMappingId')),
        realm_id: fc.uuid(),
        store_id: fc.uuid(),
      }),
      { nil: {} },
    ),
  })
  .map(({ prefix: p, readOnly }) => ({ data: { type: 'merchant-realm-mappings', prefix: p, ...readOnly } }));

/** Token request fields: valid credentials of either grant, or wrong grants, ids and secrets. */
function tokenFields(validOnly: boolean): fc.Arbitrary<[string, string][]> {
  const valid = fc.oneof(
    fc.constant<[string, string][]>([
      ['grant_type', 'client_credentials'],
      ['client_id', ref('clientId')],
      ['client_secret', ref('clientSecret')],
    ]),
    fc.constant<[string, string][]>([
      ['grant_type', 'implicit'],
      ['client_id', ref('clientId')],
    ]),
  );
  if (validOnly) return valid;
  const value = (...usual: string[]) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...usual) },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '\ud800', 'a'.repeat(512), 'a'.repeat(513)) },
      { weight: 2, arbitrary: unicodeString(0, 30) },
      { weight: 1, arbitrary: fc.integer({ min: 256, max: 3000 }).map((n) => '中'.repeat(n)) },
      { weight: 2, arbitrary: byteLimitString },
    );
  const broken = fc
    .record({
      grant: fc.option(
        value('client_credentials', 'implicit', 'password', 'CLIENT_CREDENTIALS', 'refresh_token'),
        {
          nil: undefined,
          freq: 8,
        },
      ),
      id: fc.option(value(ref('clientId'), ref('deletedClientId'), 'a'.repeat(40), '0'.repeat(40)), {
        nil: undefined,
        freq: 8,
      }),
      secret: fc.option(value(ref('clientSecret'), ref('otherClientSecret'), 'x'.repeat(43)), {
        nil: undefined,
        freq: 4,
      }),
      order: fc.nat(),
    })
    .map(({ grant, id, secret, order }) => {
      const fields: [string, string][] = [];
      if (grant !== undefined) fields.push(['grant_type', grant]);
      if (id !== undefined) fields.push(['client_id', id]);
      if (secret !== undefined) fields.push(['client_secret', secret]);
      const shift = order % Math.max(1, fields.length);
      return [...fields.slice(shift), ...fields.slice(0, shift)];
    });
  return fc.oneof(valid, broken);
}

const toObject = (fields: [string, string][]) => {
  const object: Record<string, string> = {};
  for (const [key, value] of fields) object[key] = value;
  return object;
};

/** The token endpoint takes JSON or form bodies: both, valid and broken. */
function tokenBody(): Part<FuzzBody | undefined> {
  const json = jsonBody(tokenFields(false).map(toObject));
  const validJson = jsonBody(tokenFields(true).map(toObject)).valid;
  const validForm = tokenFields(true).map(
    (fields): FuzzBody => ({
      text: fields.map(([k, v]) => `${k}=${encodeKeepingPlaceholders(v)}`).join('&'),
      base64: false,
      contentType: 'application/x-www-form-urlencoded',
    }),
  );
  const valid = fc.oneof(validJson, validForm);
  return {
    valid,
    any: fc.oneof(
      CROSS_SHRINK,
      { weight: 2, arbitrary: valid },
      { weight: 3, arbitrary: json.any },
      { weight: 3, arbitrary: formBody(tokenFields(false)) },
    ),
  };
}

const KEY_ID_OTHERS = [ref('otherKeyId'), ref('deletedKeyId')];

/**
 * The arbitraries of every route of infra/routes.ts, by `METHOD /path`. A route missing here makes
 * `fuzzTargets` throw, so a new route cannot go unfuzzed.
 */
const ROUTE_REQUESTS: Record<string, () => fc.Arbitrary<FuzzRequest>> = {
  'POST /oauth/access_token': () => requests({ auth: PUBLIC, body: tokenBody() }),
  'GET /v2/application-keys': () => requests({ auth: ADMIN, query: [pageQuery(), keyFilterQuery()] }),
  'POST /v2/application-keys': () => requests({ auth: ADMIN, body: jsonBody(newKeyBody) }),
  'GET /v2/application-keys/{id}': () =>
    requests({
      auth: ADMIN,
      params: { id: segment([ref('ownKeyId'), ref('ownKeyIdUpper')], KEY_ID_OTHERS) },
    }),
  'PUT /v2/application-keys/{id}': () =>
    requests({
      auth: ADMIN,
      params: { id: segment([ref('ownKeyId')], KEY_ID_OTHERS) },
      body: jsonBody(keyUpdateBody),
    }),
  // Only keys created for the purpose are deleted: the tokens' keys and `ownKeyId` stay.
  'DELETE /v2/application-keys/{id}': () =>
    requests({ auth: ADMIN, params: { id: segment([ref('freshKeyId')], KEY_ID_OTHERS) } }),
  'GET /v2/merchant-realm-mappings': () => requests({ auth: ADMIN }),
  'GET /v2/merchant-realm-mappings/{mapping_id}': () =>
    requests({
      auth: ADMIN,
      params: { mapping_id: segment([ref('mappingId')], [ref('otherMappingId'), ref('mappingIdUpper')]) },
    }),
  'PUT /v2/merchant-realm-mappings/{mapping_id}': () =>
    requests({
      auth: ADMIN,
      params: { mapping_id: segment([ref('mappingId')], [ref('otherMappingId'), ref('mappingIdUpper')]) },
      body: jsonBody(mappingBody),
    }),
  'GET /catalog/products/{product_id}/relationships/children': () =>
    requests({
      auth: SHOPPER,
      params: {
        product_id: segment(
          [...CATALOG.parents, ...CATALOG.parents.map((id) => id.toUpperCase())],
          [CATALOG.standalone, CATALOG.liveChild, CATALOG.draftProduct, CATALOG.draftChild],
        ),
      },
      query: [pageQuery(), filterQuery(), includeQuery()],
      headers: shopperHeaders(),
    }),
  'GET /catalog': () => requests({ auth: SHOPPER, headers: shopperHeaders() }),
  'GET /catalog/products': () =>
    requests({
      auth: SHOPPER,
      query: [pageQuery(), filterQuery(), includeQuery()],
      headers: shopperHeaders(),
    }),
  'GET /catalog/products/{product_id}': () =>
    requests({
      auth: SHOPPER,
      params: {
        product_id: segment(
          [...CATALOG.parents, CATALOG.standalone, CATALOG.liveChild, CATALOG.liveChild.toUpperCase()],
          [CATALOG.draftProduct, CATALOG.draftChild],
        ),
      },
      query: [includeQuery()],
      headers: shopperHeaders(),
    }),
  ...nodeRoutes(),
  ...pcmRoutes(),
  ...fileRoutes(),
  ...currencyRoutes(),
  ...integrationRoutes(),
  ...pricebookRoutes(),
  ...catalogRuleRoutes(),
  ...productRoutes(),
  ...variationRoutes(),
  ...hierarchyRoutes(),
  ...pcmNodeRoutes(),
  ...jobRoutes(),
};

/** `in(id,...)` over some of the release's nodes (and an unknown id), as a node filter sends it. */
const nodeFilter = fc
  .subarray([...CATALOG.nodes, CATALOG.standalone], { minLength: 1 })
  .map((ids) => [`filter=${encodeURIComponent(`in(id,${ids.join(',')})`)}`]);

/** The node and hierarchy reads: node ids as the valid path values, products' ids among the others. */
function nodeRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const nodeId = () =>
    segment([...CATALOG.nodes, ...CATALOG.nodes.map((id) => id.toUpperCase())], [CATALOG.standalone]);
  const hierarchyId = () => segment(CATALOG.hierarchies, [CATALOG.standalone, ...CATALOG.nodes]);
  const list = (query: Part<string[]>[] = [pageQuery(), filterQuery(nodeFilter)]) => ({
    auth: SHOPPER,
    query,
    headers: shopperHeaders(),
  });
  return {
    'GET /catalog/nodes': () => requests(list([pageQuery(), filterQuery(nodeFilter)])),
    'GET /catalog/nodes/{node_id}': () =>
      requests({ auth: SHOPPER, params: { node_id: nodeId() }, headers: shopperHeaders() }),
    'GET /catalog/nodes/{node_id}/relationships/children': () =>
      requests({ ...list(), params: { node_id: nodeId() } }),
    'GET /catalog/nodes/{node_id}/relationships/products': () =>
      requests({ ...list([pageQuery(), includeQuery()]), params: { node_id: nodeId() } }),
    'GET /catalog/hierarchies': () => requests(list([pageQuery(), filterQuery(nodeFilter)])),
    'GET /catalog/hierarchies/{hierarchy_id}': () =>
      requests({ auth: SHOPPER, params: { hierarchy_id: hierarchyId() }, headers: shopperHeaders() }),
    'GET /catalog/hierarchies/{hierarchy_id}/children': () =>
      requests({ ...list(), params: { hierarchy_id: hierarchyId() } }),
    'GET /catalog/hierarchies/{hierarchy_id}/nodes': () =>
      requests({ ...list(), params: { hierarchy_id: hierarchyId() } }),
    'GET /catalog/hierarchies/{hierarchy_id}/products': () =>
      requests({ ...list([pageQuery(), includeQuery()]), params: { hierarchy_id: hierarchyId() } }),
  };
}

// ---------------------------------------------------------------- the catalog API (/pcm/catalogs)

const catalogName = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,30}$/),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => (s.trim() === '' ? `c${s}` : s)),
  fc.constantFrom(
    '😀'.repeat(CATALOG_NAME_MAX),
    'a'.repeat(CATALOG_NAME_MAX),
    ` ${'é'.repeat(CATALOG_NAME_MAX - 1)}`,
  ),
);
const catalogDescription = fc.oneof(
  fc.constantFrom('', 'x'.repeat(CATALOG_DESCRIPTION_MAX), '中'.repeat(CATALOG_DESCRIPTION_MAX)),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
);
const pcmId = fc.stringMatching(/^[A-Za-z0-9._~-]{1,64}$/);
const hierarchyIds = fc.oneof(
  fc.constant([ref('hierarchyId')] as string[]),
  fc.array(fc.oneof(fc.constant(ref('hierarchyId')), fc.constantFrom(...CATALOG.hierarchies), pcmId), {
    maxLength: 5,
  }),
  fc.constant(Array.from({ length: MAX_HIERARCHY_IDS }, (_, i) => `h-${i}`)),
);
const pricebookId = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.constant(ref('pricebookId')),
  fc.constant(ref('pricebookIdUpper')),
  pcmId,
);
const pricebookIds = fc.array(
  fc.record({
    id: fc.oneof(fc.constant(ref('pricebookId')), fc.uuid(), pcmId),
    priority: fc.oneof(fc.integer(), fc.double(), fc.constant('1')),
  }),
  { maxLength: 6 },
);

/** The catalog attributes, each present or not (`required` always present). */
const catalogAttributes = (required: 'name' | undefined) =>
  fc.record(
    {
      name: catalogName,
      description: catalogDescription,
      hierarchy_ids: hierarchyIds,
      pricebook_id: pricebookId,
      pricebook_ids: pricebookIds,
    },
    { requiredKeys: required === undefined ? [] : [required] },
  );

const newCatalogBody = catalogAttributes('name').map((attributes) => ({
  data: { type: 'catalog', attributes },
}));

/** An update names at least one attribute; `data.id`, when sent, is the path's (or another catalog's: 409). */
const catalogUpdateBody = fc
  .record({
    attributes: catalogAttributes(undefined).filter((attributes) => Object.keys(attributes).length > 0),
    id: fc.option(fc.constantFrom(ref('catalogId'), ref('documentCatalogId'), ref('otherCatalogId')), {
      nil: undefined,
      freq: 2,
    }),
  })
  .map(({ attributes, id }) => ({
    data: { type: 'catalog', ...(id === undefined ? {} : { id }), attributes },
  }));

/** The optional body of a new release: the platform's fields, all accepted and ignored. */
const newReleaseBody = fc
  .record(
    {
      type: fc.constant('catalog-release'),
      export_full_delta: fc.boolean(),
      include_organization_resources: fc.option(fc.boolean(), { nil: null }),
    },
    { requiredKeys: [] },
  )
  .chain((data) => fc.constantFrom<Json>({ data: data as Json }, {}));

/** No body, or a JSON one (valid or broken). */
function optionalJsonBody(value: fc.Arbitrary<Json>): Part<FuzzBody | undefined> {
  const json = jsonBody(value);
  return {
    valid: fc.oneof(fc.constant(undefined), json.valid),
    any: fc.oneof(
      CROSS_SHRINK,
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: json.any },
    ),
  };
}

/** A JSON text of exactly `bytes` bytes: one string. */
const jsonOfBytes = (bytes: number): FuzzBody => ({
  text: `"${'a'.repeat(bytes - 2)}"`,
  base64: false,
  contentType: 'application/json',
});

/**
 * Release documents (`PUT …/document`): any JSON is stored (a release validates it), so valid bodies are the
 * fuzz document or small JSON of any shape; broken ones are jsonBody's, and bodies at the 5 MB limit.
 */
function documentBody(): Part<FuzzBody | undefined> {
  const json = jsonBody(
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(FUZZ_DOCUMENT as unknown as Json) },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => value as Json) },
    ),
  );
  return {
    valid: json.valid,
    any: fc.oneof(
      CROSS_SHRINK,
      { weight: 16, arbitrary: json.any },
      {
        weight: 1,
        arbitrary: fc.constantFrom(-1, 0, 1).map((delta) => jsonOfBytes(MAX_DOCUMENT_BYTES + delta)),
      },
    ),
  };
}

/**
 * The catalog API's routes: `catalogId` (its document stays the valid fuzz document, so its releases publish)
 * and `documentCatalogId` (whose document is fuzzed) as the valid catalogs; store B's, a deleted one and
 * unknown ids among the others. Deletes only delete what was created for the purpose.
 */
function pcmRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const CATALOG_OTHERS = [ref('otherCatalogId'), ref('deletedCatalogId')];
  const catalogId = (valid = [ref('catalogId'), ref('catalogIdUpper'), ref('documentCatalogId')]) =>
    segment(valid, CATALOG_OTHERS);
  const RELEASE_OTHERS = [ref('otherReleaseId'), 'latestpublished', 'LatestPublished', 'latestPublished%20'];
  return {
    'POST /pcm/catalogs': () => requests({ auth: ADMIN, body: jsonBody(newCatalogBody) }),
    'GET /pcm/catalogs': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /pcm/catalogs/{catalog_id}': () => requests({ auth: ADMIN, params: { catalog_id: catalogId() } }),
    'PUT /pcm/catalogs/{catalog_id}': () =>
      requests({ auth: ADMIN, params: { catalog_id: catalogId() }, body: jsonBody(catalogUpdateBody) }),
    // A catalog with releases is 409: `catalogId` (its current release) is among the others.
    'DELETE /pcm/catalogs/{catalog_id}': () =>
      requests({
        auth: ADMIN,
        params: {
          catalog_id: segment(
            [ref('freshCatalogId')],
            [...CATALOG_OTHERS, ref('catalogId'), ref('catalogIdUpper')],
          ),
        },
      }),
    'PUT /pcm/catalogs/{catalog_id}/document': () =>
      requests({
        auth: ADMIN,
        params: { catalog_id: segment([ref('documentCatalogId')], CATALOG_OTHERS) },
        body: documentBody(),
      }),
    'POST /pcm/catalogs/{catalog_id}/document-uploads': () =>
      requests({ auth: ADMIN, params: { catalog_id: catalogId([ref('documentCatalogId')]) } }),
    'POST /pcm/catalogs/{catalog_id}/releases': () =>
      requests({ auth: ADMIN, params: { catalog_id: catalogId() }, body: optionalJsonBody(newReleaseBody) }),
    'GET /pcm/catalogs/{catalog_id}/releases': () =>
      requests({ auth: ADMIN, params: { catalog_id: catalogId() }, query: [pageQuery()] }),
    'GET /pcm/catalogs/{catalog_id}/releases/{release_id}': () =>
      requests({
        auth: ADMIN,
        params: {
          catalog_id: catalogId([ref('catalogId'), ref('catalogIdUpper')]),
          release_id: segment(
            [ref('releaseId'), ref('releaseIdUpper'), ref('currentReleaseId'), 'latestPublished'],
            RELEASE_OTHERS,
          ),
        },
      }),
    // Fresh failed releases are deleted; one of another store is 404. Not the current one: deleting it
    // rolls the catalog back (or unpublishes it), which would change the world the other routes read.
    'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}': () =>
      requests({
        auth: ADMIN,
        params: {
          catalog_id: catalogId([ref('catalogId'), ref('catalogIdUpper')]),
          release_id: segment([ref('freshReleaseId')], RELEASE_OTHERS),
        },
      }),
    // Every release of a fresh catalog (none) or of the fuzzed document's catalog: never the catalog the
    // releases routes read, which this would unpublish.
    'DELETE /pcm/catalogs/{catalog_id}/releases': () =>
      requests({
        auth: ADMIN,
        params: { catalog_id: catalogId([ref('freshCatalogId'), ref('documentCatalogId')]) },
      }),
  };
}

/** An https URL a CDN could serve, sometimes long, sometimes with a query or a fragment. */
const fileLocation = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: FILE_LOCATION_MAX - 'https://cdn.example.com/'.length })
      .map((length) => `https://cdn.example.com/${'a'.repeat(length)}`),
  },
);

/** `POST /v2/files` JSON bodies: the flat field or the JSON:API envelope. */
const newFileBody: fc.Arbitrary<Json> = fc.oneof(
  fileLocation.map((url) => ({ file_location: url })),
  fileLocation.map((url) => ({ data: { type: 'file', file_location: url } })),
);

/** A multipart/form-data body of `parts` (each its headers, a blank line and its value), less its last `cut` characters. */
const multipartBytes = (parts: string[], boundary: string, cut = 0) => {
  const text = `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
  return Buffer.from(text.slice(0, text.length - cut));
};
const formField = (name: string, value: string) =>
  `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
const formBoundary = fc.stringMatching(/^[0-9A-Za-z'()+_,./:=?-]{1,70}$/);

/**
 * `POST /pcm/products/import` bodies, as the SDK's `ImportProducts(formData)` sends them: a `file` part
 * holding a CSV of a header and rows of any cells (a row's errors are the job's, not the request's); broken
 * ones add fields, send `file` as text, or lose their boundary or their end.
 */
const importBody: Part<FuzzBody | undefined> = (() => {
  const cell = fc.oneof(
    fc.constantFrom('', 'live', 'Draft', 'physical', 'x,y', '"q"', 'a\r\nb'),
    unicodeString(0, 12),
  );
  const csvValue = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  const csv = fc
    .array(fc.array(cell, { minLength: 6, maxLength: 6 }), { maxLength: 5 })
    .map((rows) =>
      [
        'external_ref,name,description,slug,status,commodity_type',
        ...rows.map((row) => row.map(csvValue).join(',')),
      ].join('\r\n'),
    );
  const file = (text: string) =>
    `Content-Disposition: form-data; name="file"; filename="products.csv"\r\nContent-Type: text/csv\r\n\r\n${text}`;
  const valid = fc.tuple(csv, formBoundary).map(
    ([text, b]): FuzzBody => ({
      text: multipartBytes([file(text)], b).toString('base64'),
      base64: true,
      contentType: `multipart/form-data; boundary=${b}`,
    }),
  );
  const extra = fc.oneof(
    fc
      .tuple(fc.constantFrom('file', 'locale', '__proto__', ''), unicodeString(0, 20))
      .map(([n, v]) => formField(n, v)),
    unicodeString(0, 40),
  );
  const broken = fc
    .tuple(csv, formBoundary, fc.array(extra, { maxLength: 3 }), fc.nat(12), fc.boolean(), fc.boolean())
    .map(
      ([text, b, extras, cut, keepBoundary, asText]): FuzzBody => ({
        text: multipartBytes([asText ? formField('file', text) : file(text), ...extras], b, cut).toString(
          'base64',
        ),
        base64: true,
        contentType: keepBoundary ? `multipart/form-data; boundary=${b}` : 'multipart/form-data',
      }),
    );
  return {
    valid,
    any: fc.oneof(CROSS_SHRINK, { weight: 1, arbitrary: valid }, { weight: 2, arbitrary: broken }),
  };
})();

/**
 * `POST /v2/files` multipart bodies, as the SDK's `Files.Link` sends them: one `file_location` field; broken
 * ones add fields, a file part, a repeated field, or lose their boundary or their end.
 */
function multipartFileBody(): Part<FuzzBody | undefined> {
  const build = multipartBytes;
  const field = formField;
  const boundary = formBoundary;
  const valid = fc.tuple(fileLocation, boundary).map(
    ([url, b]): FuzzBody => ({
      text: build([field('file_location', url)], b).toString('base64'),
      base64: true,
      contentType: `multipart/form-data; boundary=${b}`,
    }),
  );
  const extra = fc.oneof(
    fc
      .tuple(fc.constantFrom('public', 'file', 'file_location', '__proto__', ''), unicodeString(0, 20))
      .map(([name, value]) => field(name, value)),
    fc.constant(
      'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG',
    ),
    unicodeString(0, 40),
  );
  const broken = fc
    .tuple(fileLocation, boundary, fc.array(extra, { maxLength: 3 }), fc.nat(12), fc.boolean())
    .map(
      ([url, b, extras, cut, keepBoundary]): FuzzBody => ({
        text: build([field('file_location', url), ...extras], b, cut).toString('base64'),
        base64: true,
        contentType: keepBoundary ? `multipart/form-data; boundary=${b}` : 'multipart/form-data',
      }),
    );
  return {
    valid,
    any: fc.oneof(CROSS_SHRINK, { weight: 1, arbitrary: valid }, { weight: 2, arbitrary: broken }),
  };
}

/** The files API's routes: `fileId` is never deleted; deletes delete only files created for the purpose. */
function fileRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherFileId'), ref('deletedFileId')];
  return {
    'POST /v2/files': () => {
      const json = jsonBody(newFileBody);
      const multipart = multipartFileBody();
      return requests({
        auth: ADMIN,
        body: {
          valid: fc.oneof(json.valid, multipart.valid),
          any: fc.oneof(
            CROSS_SHRINK,
            { weight: 2, arbitrary: json.any },
            { weight: 1, arbitrary: multipart.any },
          ),
        },
      });
    },
    'GET /v2/files': () => requests({ auth: ADMIN, query: [pageQuery(), filterQuery(fileFilter)] }),
    'GET /v2/files/{file_id}': () =>
      requests({ auth: ADMIN, params: { file_id: segment([ref('fileId'), ref('fileIdUpper')], OTHERS) } }),
    'DELETE /v2/files/{file_id}': () =>
      requests({
        auth: ADMIN,
        params: { file_id: segment([ref('freshFileId')], [...OTHERS, ref('fileIdUpper')]) },
      }),
  };
}

/** Filters of the file list: `eq`/`in` on id, file_name and public, `like` on file_name, encoded as a client sends them. */
const fileFilter: fc.Arbitrary<string[]> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'eq(public,true)',
        'eq(public,false)',
        'in(id,{{fileId}},{{otherFileId}})',
        'eq(id,{{fileIdUpper}})',
      ),
      fc.stringMatching(/^[a-z0-9_.-]{1,20}$/).map((name) => `eq(file_name,${name})`),
      fc.constant('eq(file_name,kept.png)'),
      fc.stringMatching(/^[a-z*.]{1,12}$/).map((pattern) => `like(file_name,${pattern})`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((expressions) => [`filter=${encodeKeepingPlaceholders(expressions.join(':'))}`]);

// ---------------------------------------------------------------- the product API (/pcm/products)

const text = (max: number) =>
  fc.oneof(
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,30}$/),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => (s.trim() === '' ? `p${s}` : s)),
    fc.constantFrom('a'.repeat(max), '😀'.repeat(max)),
  );
const productOption = fc.record(
  {
    id: fc.constantFrom(ref('productId'), ref('otherProductId'), ref('deletedProductId')),
    type: fc.constant('product'),
    quantity: fc.integer({ min: 1, max: 5 }),
    default: fc.boolean(),
  },
  { requiredKeys: ['id', 'type', 'quantity'] },
);

/** Product attributes, each present or not (`required` always present). */
const productAttributes = (required: 'name' | undefined) =>
  fc.record(
    {
      name: text(255),
      sku: fc.oneof(fc.constantFrom('FUZZ-PRODUCT', 'fuzz-product'), fc.stringMatching(/^[A-Z0-9-]{1,20}$/)),
      slug: fc.stringMatching(/^[a-z0-9._-]{1,40}$/),
      description: fc.string({ maxLength: 60 }),
      status: fc.constantFrom('draft', 'live'),
      commodity_type: fc.constantFrom('physical', 'digital'),
      upc_ean: fc.stringMatching(/^[0-9]{0,13}$/),
      mpn: fc.string({ maxLength: 20 }),
      external_ref: fc.stringMatching(/^[a-z0-9-]{1,30}$/),
      tags: fc.array(fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/), { maxLength: 20 }),
      locales: fc.dictionary(fc.constantFrom('en-US', 'fr-FR', 'de'), fc.record({ name: text(255) }), {
        maxKeys: 3,
      }),
      components: fc.dictionary(
        fc.stringMatching(/^[a-z]{1,8}$/),
        fc.record({ name: text(255), options: fc.array(productOption, { minLength: 1, maxLength: 3 }) }),
        { maxKeys: 2 },
      ),
      extensions: fc.dictionary(
        fc.stringMatching(/^[a-z-]{1,12}$/),
        fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
        { maxKeys: 2 },
      ),
    },
    { requiredKeys: required === undefined ? [] : [required] },
  );

/** An update's `data.id` is the path's, or another product's (409). */
const productUpdateBody = fc
  .record({
    attributes: productAttributes(undefined),
    id: fc.constantFrom(ref('productId'), ref('productId'), ref('otherProductId')),
  })
  .map(({ attributes, id }) => ({ data: { type: 'product', id, attributes } }));

const productFilter = fc
  .tuple(
    fc.constantFrom('eq', 'like', 'in'),
    fc.constantFrom('sku', 'name', 'tags', 'slug', 'mpn', 'external_ref', 'id', 'status'),
    fc.stringMatching(/^[A-Za-z0-9*-]{1,12}$/),
  )
  .map(([op, attribute, value]) => [`filter=${encodeURIComponent(`${op}(${attribute},${value})`)}`]);

function productRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherProductId'), ref('deletedProductId')];
  const productId = (valid = [ref('productId'), ref('productIdUpper')]) => segment(valid, OTHERS);
  /** A's product, or its parent with a built child. */
  const anyProductId = () => productId([ref('productId'), ref('productIdUpper'), ref('parentProductId')]);
  return {
    'POST /pcm/products': () =>
      requests({
        auth: ADMIN,
        body: jsonBody(
          productAttributes('name').map((attributes) => ({ data: { type: 'product', attributes } })),
        ),
      }),
    'GET /pcm/products': () =>
      requests({ auth: ADMIN, query: [pageQuery(), filterQuery(productFilter), includeQuery()] }),
    'GET /pcm/products/{product_id}': () =>
      requests({
        auth: ADMIN,
        params: { product_id: anyProductId() },
        query: [includeQuery()],
      }),
    'PUT /pcm/products/{product_id}': () =>
      requests({
        auth: ADMIN,
        params: { product_id: segment([ref('productId')], OTHERS) },
        body: jsonBody(productUpdateBody),
      }),
    'GET /pcm/products/{product_id}/relationships/component_products': () =>
      requests({ auth: ADMIN, params: { product_id: productId() } }),
    'DELETE /pcm/products/{product_id}': () =>
      requests({ auth: ADMIN, params: { product_id: productId([ref('freshProductId')]) } }),
    ...productFileRoutes(productId),
    ...variationLinkRoutes(anyProductId),
  };
}

/**
 * A product's file relationships: bodies naming the store's kept file (never deleted by its own route's
 * valid cases), another store's and a deleted one; `main_image`'s PUT also in the specification's array.
 */
function productFileRoutes(
  productId: (valid?: string[]) => Part<string>,
): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  /** A file a product's relationships may name: the store's own (any case), another store's, a deleted one. */
  const relatedFile = fc.constantFrom(
    ref('fileId'),
    ref('fileIdUpper'),
    ref('fileId'),
    ref('otherFileId'),
    ref('deletedFileId'),
  );
  const fileIdentifier = relatedFile.map((id) => ({ type: 'file', id }));
  const fileEntry = fc
    .record(
      { id: relatedFile, tags: fc.array(fc.stringMatching(/^[A-Za-z0-9 -]{1,20}$/), { maxLength: 3 }) },
      { requiredKeys: ['id'] },
    )
    .map(({ id, tags }) => ({ type: 'file', id, ...(tags === undefined ? {} : { meta: { tags } }) }));
  const filesBody = (entry: fc.Arbitrary<Json>) =>
    jsonBody(fc.array(entry, { maxLength: 3 }).map((data) => ({ data })));
  const path = '/pcm/products/{product_id}/relationships';
  const params = { product_id: productId() };
  const mainImage = fileIdentifier.map((data) => ({ data }));
  return {
    [`GET ${path}/main_image`]: () => requests({ auth: ADMIN, params }),
    [`POST ${path}/main_image`]: () => requests({ auth: ADMIN, params, body: jsonBody(mainImage) }),
    [`PUT ${path}/main_image`]: () =>
      requests({
        auth: ADMIN,
        params,
        body: jsonBody(
          fc.oneof(
            mainImage,
            fileIdentifier.map((identifier) => ({ data: [identifier] })),
          ),
        ),
      }),
    [`DELETE ${path}/main_image`]: () =>
      requests({
        auth: ADMIN,
        params,
        body: {
          valid: fc.oneof(fc.constant(undefined), jsonBody(mainImage).valid),
          any: jsonBody(mainImage).any,
        },
      }),
    [`GET ${path}/files`]: () => requests({ auth: ADMIN, params }),
    [`POST ${path}/files`]: () => requests({ auth: ADMIN, params, body: filesBody(fileEntry) }),
    [`PUT ${path}/files`]: () => requests({ auth: ADMIN, params, body: filesBody(fileEntry) }),
    [`DELETE ${path}/files`]: () => requests({ auth: ADMIN, params, body: filesBody(fileIdentifier) }),
  };
}

/** Variations to link: store A's, store B's (422), unknown ids and ids that are no UUID. */
const variationLinks = fc
  .array(
    fc.oneof(
      fc.constantFrom(ref('variationId'), ref('otherVariationId')),
      fc.uuid(),
      fc.string({ maxLength: 70 }),
    ),
    { maxLength: 4 },
  )
  .map((ids) => ({ data: ids.map((id) => ({ type: 'product-variation', id })) }));

/** `/pcm/products/{product_id}/relationships/variations` and the children list. */
function variationLinkRoutes(productId: () => Part<string>): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const LINKS = '/pcm/products/{product_id}/relationships/variations';
  const write = () =>
    requests({ auth: ADMIN, params: { product_id: productId() }, body: jsonBody(variationLinks) });
  return {
    [`GET ${LINKS}`]: () => requests({ auth: ADMIN, params: { product_id: productId() } }),
    [`POST ${LINKS}`]: write,
    [`PUT ${LINKS}`]: write,
    [`DELETE ${LINKS}`]: write,
    'GET /pcm/products/{product_id}/children': () =>
      requests({ auth: ADMIN, params: { product_id: productId() }, query: [pageQuery()] }),
    'POST /pcm/products/{product_id}/build': () =>
      requests({
        auth: ADMIN,
        params: { product_id: productId() },
        body: optionalJsonBody(fc.constant({})),
      }),
  };
}

// ---------------------------------------------------------------- currencies (/v2/currencies)

/** Currency fields, the legacy flat format: valid values, and values at and past each bound. */
const currencyFields = fc.record(
  {
    code: fc.oneof(
      fc.stringMatching(/^[A-Za-z]{3}$/),
      fc.constantFrom('USD', 'usd', 'EUR', 'VIC'),
      fc.constantFrom('US', 'USDX', '€€€', ''),
    ),
    exchange_rate: fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.constantFrom(0, 1e9, 1e10, -1)),
    format: fc.oneof(
      fc.string({ maxLength: 20 }).map((text) => `${text}{price}`),
      fc.constantFrom(
        `{price}${'x'.repeat(CURRENCY_FORMAT_MAX - 7)}`,
        `{price}${'x'.repeat(CURRENCY_FORMAT_MAX)}`,
        '$',
      ),
    ),
    decimal_point: fc.string({ maxLength: CURRENCY_SEPARATOR_MAX + 1 }),
    thousand_separator: fc.string({ maxLength: CURRENCY_SEPARATOR_MAX + 1 }),
    decimal_places: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constantFrom(9, -1, 1.5)),
    default: fc.boolean(),
    enabled: fc.oneof(
      { weight: 4, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
  },
  { requiredKeys: [] },
);
const newCurrencyBody = currencyFields.map((fields) => ({ data: { type: 'currency', ...fields } }));
const currencyUpdateBody = fc
  .tuple(
    currencyFields,
    fc.constantFrom(undefined, ref('currencyId'), ref('currencyIdUpper'), ref('otherCurrencyId')),
  )
  .map(([fields, id]) => ({ data: { type: 'currency', ...(id === undefined ? {} : { id }), ...fields } }));

/** The currencies API's routes: `currencyId` is never deleted; deletes take currencies made for the purpose. */
function currencyRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherCurrencyId'), ref('deletedCurrencyId')];
  const currencyId = segment([ref('currencyId'), ref('currencyIdUpper')], OTHERS);
  return {
    'POST /v2/currencies': () => requests({ auth: ADMIN, body: jsonBody(newCurrencyBody) }),
    'GET /v2/currencies': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /v2/currencies/{currency_id}': () => requests({ auth: ADMIN, params: { currency_id: currencyId } }),
    'PUT /v2/currencies/{currency_id}': () =>
      requests({ auth: ADMIN, params: { currency_id: currencyId }, body: jsonBody(currencyUpdateBody) }),
    'DELETE /v2/currencies/{currency_id}': () =>
      requests({
        auth: ADMIN,
        params: { currency_id: segment([ref('freshCurrencyId')], [...OTHERS, ref('currencyId')]) },
      }),
  };
}

// ---------------------------------------------------------------- integrations (/v2/integrations)

/**
 * Integration fields, the legacy flat format. URLs are public address literals (no DNS asked), refused
 * addresses and schemes, and text at and past the bound; events the served ones, others and too many.
 */
const integrationFields = fc.record(
  {
    name: fc.oneof(unicodeString(0, 30), fc.constantFrom('', ' ', 'x'.repeat(255), 'x'.repeat(256))),
    description: unicodeString(0, 30),
    enabled: fc.boolean(),
    integration_type: fc.constantFrom('webhook', 'aws_sqs', 'stomp', 'WEBHOOK', ''),
    observes: fc.oneof(
      fc.subarray<string>([...OBSERVABLE_EVENTS], { minLength: 1, maxLength: 5 }),
      fc.constantFrom<string[]>(
        [],
        [...OBSERVABLE_EVENTS],
        ['product.created'],
        ['catalog-rule.created', 'catalog-rule.created'],
      ),
    ),
    configuration: fc.record(
      {
        url: fc.oneof(
          fc.constantFrom(
            'https://93.184.216.34/hooks',
            'http://93.184.216.34:8080/a?b=c',
            'http://10.0.0.1/',
            'http://169.254.169.254/latest/meta-data/',
            'http://[::ffff:127.0.0.1]/',
            'ftp://93.184.216.34/',
            'https://user:pw@93.184.216.34/',
            `https://93.184.216.34/${'a'.repeat(URL_MAX)}`,
            '',
          ),
          unicodeString(0, 20),
        ),
        secret_key: fc.oneof(unicodeString(0, 20), fc.constant('s'.repeat(SECRET_KEY_MAX + 1))),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const newIntegrationBody = integrationFields.map((fields) => ({ data: { type: 'integration', ...fields } }));
const integrationUpdateBody = fc
  .tuple(
    integrationFields,
    fc.constantFrom(undefined, ref('integrationId'), ref('integrationIdUpper'), ref('otherIntegrationId')),
  )
  .map(([fields, id]) => ({ data: { type: 'integration', ...(id === undefined ? {} : { id }), ...fields } }));

/** The integrations API's routes: `integrationId` is never deleted; deletes take integrations made for the purpose. */
function integrationRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherIntegrationId'), ref('deletedIntegrationId')];
  const integrationId = segment([ref('integrationId'), ref('integrationIdUpper')], OTHERS);
  const byId = () =>
    requests({ auth: ADMIN, params: { integration_id: integrationId }, query: [pageQuery()] });
  return {
    'POST /v2/integrations': () => requests({ auth: ADMIN, body: jsonBody(newIntegrationBody) }),
    'GET /v2/integrations': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /v2/integrations/logs': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /v2/integrations/{integration_id}': () =>
      requests({ auth: ADMIN, params: { integration_id: integrationId } }),
    'PUT /v2/integrations/{integration_id}': () =>
      requests({
        auth: ADMIN,
        params: { integration_id: integrationId },
        body: jsonBody(integrationUpdateBody),
      }),
    'DELETE /v2/integrations/{integration_id}': () =>
      requests({
        auth: ADMIN,
        params: { integration_id: segment([ref('freshIntegrationId')], [...OTHERS, ref('integrationId')]) },
      }),
    'GET /v2/integrations/{integration_id}/logs': byId,
    'GET /v2/integrations/{integration_id}/jobs': byId,
    'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs': () =>
      requests({
        auth: ADMIN,
        params: {
          integration_id: integrationId,
          job_id: segment([ref('integrationJobId')], [ref('jobId'), ref('integrationId')]),
        },
        query: [pageQuery()],
      }),
  };
}

// ---------------------------------------------------------------- jobs (/pcm/jobs)

/** An import request: a form with a `file` part, or a JSON body naming an upload of this type. */
function importRequests(type: 'product-import' | 'price-import'): fc.Arbitrary<FuzzRequest> {
  const byUpload = jsonBody(
    fc
      .oneof(fc.uuid(), fc.constantFrom('', 'x', '../other'), unicodeString(0, 40))
      .map((id) => ({ data: { type, upload_id: id } })),
  );
  return requests({
    auth: ADMIN,
    body: {
      valid: importBody.valid,
      any: fc.oneof(
        CROSS_SHRINK,
        { weight: 2, arbitrary: importBody.any },
        { weight: 1, arbitrary: byUpload.any },
      ),
    },
  });
}

/** The job routes: store A's pending job as the valid id (cancel takes a fresh one), B's and unknown ids among the others. */
function jobRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const jobId = (valid = [ref('jobId'), ref('jobIdUpper')]) => segment(valid, [ref('otherJobId')]);
  return {
    'POST /pcm/products/import': () => importRequests('product-import'),
    // The form's file is the job's to read (its errors are the job's): the product import's bodies serve.
    'POST /pcm/pricebooks/import': () => importRequests('price-import'),
    'POST /pcm/products/import-uploads': () => requests({ auth: ADMIN }),
    'GET /pcm/jobs': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /pcm/jobs/{job_id}': () => requests({ auth: ADMIN, params: { job_id: jobId() } }),
    'GET /pcm/jobs/{job_id}/errors': () =>
      requests({ auth: ADMIN, params: { job_id: jobId() }, query: [pageQuery()] }),
    'POST /pcm/jobs/{job_id}/cancel': () =>
      requests({ auth: ADMIN, params: { job_id: jobId([ref('freshJobId'), ref('jobId')]) } }),
  };
}

// ---------------------------------------------------------------- price books (/pcm/pricebooks)

const pricebookAttributes = fc.record(
  {
    name: fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
      fc.constantFrom(
        'Retail',
        'Fuzz book',
        ' ',
        'n'.repeat(PRICEBOOK_NAME_MAX),
        'n'.repeat(PRICEBOOK_NAME_MAX + 1),
      ),
    ),
    description: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constant('d'.repeat(PRICEBOOK_DESCRIPTION_MAX + 1)),
    ),
    external_ref: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('e'.repeat(PRICEBOOK_EXTERNAL_REF_MAX))),
  },
  { requiredKeys: [] },
);
const pricebookBody = (id: fc.Arbitrary<string | undefined>) =>
  fc.tuple(pricebookAttributes, id).map(([attributes, dataId]) => ({
    data: { type: 'pricebook', ...(dataId === undefined ? {} : { id: dataId }), attributes },
  }));

/** The price book routes: `pricebookId` is never deleted; deletes take books made for the purpose. */
function pricebookRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherPricebookId'), ref('deletedPricebookId')];
  const pricebookId = segment([ref('pricebookId'), ref('pricebookIdUpper')], OTHERS);
  return {
    'POST /pcm/pricebooks': () =>
      requests({ auth: ADMIN, body: jsonBody(pricebookBody(fc.constant(undefined))) }),
    'GET /pcm/pricebooks': () => requests({ auth: ADMIN, query: [pageQuery()] }),
    'GET /pcm/pricebooks/{pricebook_id}': () =>
      requests({ auth: ADMIN, params: { pricebook_id: pricebookId } }),
    'PUT /pcm/pricebooks/{pricebook_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId },
        body: jsonBody(
          pricebookBody(fc.constantFrom(undefined, ref('pricebookId'), ref('otherPricebookId'))),
        ),
      }),
    'DELETE /pcm/pricebooks/{pricebook_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: segment([ref('freshPricebookId')], [...OTHERS, ref('pricebookId')]) },
      }),
    ...priceRoutes(segment([ref('pricesBookId')], OTHERS)),
  };
}

// ---------------------------------------------------------------- prices and price modifiers of a book

const amount = fc.oneof(
  fc.integer({ min: 0, max: 100_000 }),
  fc.constantFrom(-1, 1.5, AMOUNT_MAX, AMOUNT_MAX + 1, '100', null),
);
const tiers = fc.dictionary(
  fc.oneof(fc.stringMatching(/^[a-z]{1,8}$/), fc.constantFrom('', ' ', 't'.repeat(65))),
  fc.record({
    minimum_quantity: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0, -1, 2.5)),
    amount,
  }),
  { maxKeys: MAX_TIERS + 1 },
);
const currencies = fc.dictionary(
  fc.oneof(fc.constantFrom('USD', 'EUR', 'GBP', 'JPY'), fc.constantFrom('usd', 'US', 'USDX', '')),
  fc.record(
    { amount, includes_tax: fc.oneof(fc.boolean(), fc.constant('yes')), tiers },
    { requiredKeys: ['amount'] },
  ),
  { maxKeys: 4 },
);
const dateText = fc.oneof(
  fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2030-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constantFrom('tomorrow', '2026-13-01T00:00:00Z', ''),
);
const sales = fc.dictionary(
  fc.oneof(fc.stringMatching(/^[a-z]{1,8}$/), fc.constantFrom('', 's'.repeat(65))),
  fc.record(
    {
      bundle_ids: fc.array(fc.oneof(fc.uuid(), fc.constant('not-a-uuid')), { maxLength: 3 }),
      schedule: fc.record({ valid_from: dateText, valid_to: dateText }, { requiredKeys: [] }),
      currencies,
    },
    { requiredKeys: ['currencies'] },
  ),
  { maxKeys: 3 },
);
const attributeMap = fc.oneof(
  fc.dictionary(
    fc.string({ maxLength: 10 }),
    fc.oneof(fc.string({ maxLength: 20 }), fc.constant(1 as unknown as string)),
    {
      maxKeys: 5,
    },
  ),
  fc.constant(Object.fromEntries(Array.from({ length: MAX_ATTRIBUTE_KEYS + 1 }, (_, n) => [`k${n}`, 'v']))),
  fc.constant(Object.fromEntries(Array.from({ length: 60 }, (_, n) => [`k${n}`, '"'.repeat(1000)]))),
);
const priceAttributes = fc.record(
  {
    sku: fc.oneof(
      fc.constantFrom('FUZZ-PRICE', 'fuzz-price', 'Fuzz-Other', ' ', ''),
      fc.string({ maxLength: 20 }),
    ),
    currencies,
    sales,
    external_ref: fc.string({ maxLength: 20 }),
    admin_attributes: attributeMap,
    shopper_attributes: attributeMap,
  },
  { requiredKeys: [] },
);
const modifierAttributes = fc.record(
  {
    name: fc.oneof(fc.constantFrom('Fuzz modifier', 'fuzz modifier', ' '), fc.string({ maxLength: 20 })),
    modifier_type: fc.constantFrom('price_increment', 'price_decrement', 'price_equals', 'percent'),
    currencies,
    external_ref: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: [] },
);
const entryBody = (
  type: string,
  attributes: fc.Arbitrary<Record<string, unknown>>,
  id: fc.Arbitrary<string | undefined>,
) =>
  fc
    .tuple(attributes, id)
    .map(
      ([values, dataId]) =>
        ({ data: { type, ...(dataId === undefined ? {} : { id: dataId }), attributes: values } }) as Json,
    );
const entryFilter = (attributes: string[]) =>
  fc
    .tuple(
      fc.constantFrom('eq', 'like', 'in', 'gt'),
      fc.constantFrom(...attributes),
      fc.stringMatching(/^[A-Za-z0-9*-]{1,12}$/),
    )
    .map(([op, attribute, value]) => [`filter=${encodeURIComponent(`${op}(${attribute},${value})`)}`]);

/** Prices and modifiers of A's kept book (`pricebookId` picks the book); deletes take entries made for the purpose. */
function priceRoutes(pricebookId: Part<string>): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const price = (valid = [ref('priceId')]) => segment(valid, [ref('otherPriceId')]);
  const modifier = (valid = [ref('priceModifierId')]) => segment(valid, [ref('priceId')]);
  const NO_ID = fc.constant(undefined);
  return {
    'GET /pcm/pricebooks/prices': () =>
      requests({
        auth: ADMIN,
        query: [pageQuery(), filterQuery(entryFilter(['sku', 'external_ref', 'id', 'name']))],
      }),
    'POST /pcm/pricebooks/{pricebook_id}/prices': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId },
        body: jsonBody(entryBody('product-price', priceAttributes, NO_ID)),
      }),
    'GET /pcm/pricebooks/{pricebook_id}/prices': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId },
        query: [pageQuery(), filterQuery(entryFilter(['sku', 'external_ref', 'name']))],
      }),
    'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}': () =>
      requests({ auth: ADMIN, params: { pricebook_id: pricebookId, price_id: price() } }),
    'PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId, price_id: price() },
        body: jsonBody(
          entryBody(
            'product-price',
            priceAttributes,
            fc.constantFrom(undefined, ref('priceId'), ref('otherPriceId')),
          ),
        ),
      }),
    'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId, price_id: price([ref('freshPriceId')]) },
      }),
    'POST /pcm/pricebooks/{pricebook_id}/modifiers': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId },
        body: jsonBody(entryBody('price-modifier', modifierAttributes, NO_ID)),
      }),
    'GET /pcm/pricebooks/{pricebook_id}/modifiers': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId },
        query: [pageQuery(), filterQuery(entryFilter(['name', 'external_ref', 'sku']))],
      }),
    'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': () =>
      requests({ auth: ADMIN, params: { pricebook_id: pricebookId, modifier_id: modifier() } }),
    'PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId, modifier_id: modifier() },
        body: jsonBody(
          entryBody('price-modifier', modifierAttributes, fc.constantFrom(undefined, ref('priceModifierId'))),
        ),
      }),
    'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': () =>
      requests({
        auth: ADMIN,
        params: { pricebook_id: pricebookId, modifier_id: modifier([ref('freshPriceModifierId')]) },
      }),
  };
}

// ---------------------------------------------------------------- variations (/pcm/variations)

const variationName = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => (s.trim() === '' ? `v${s}` : s)),
  fc.constantFrom('a'.repeat(VARIATION_NAME_MAX), '😀'.repeat(VARIATION_NAME_MAX)),
);
const optionName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
  fc.constantFrom('Extra large', 'x'.repeat(VARIATION_NAME_MAX)),
);
const sortOrder = fc.oneof(fc.integer(), fc.constant(null), fc.constantFrom(2147483647, -2147483648));
const variationBody = (type: string, id: fc.Arbitrary<string | undefined>, name: fc.Arbitrary<string>) =>
  fc
    .record({
      id,
      attributes: fc.record(
        { name, description: fc.string({ maxLength: 60 }), sort_order: sortOrder },
        { requiredKeys: [] },
      ),
    })
    .map(({ id: dataId, attributes }) => {
      const kept: Record<string, Json> = { ...(attributes as Record<string, Json>) };
      if (type === 'product-variation') delete kept.description;
      return { data: { type, ...(dataId === undefined ? {} : { id: dataId }), attributes: kept } };
    });
const modifierBody = fc
  .record(
    {
      type: fc.constantFrom(...MODIFIER_TYPES),
      value: fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('live', 'draft', 'physical', 'digital'),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      ),
      seek: fc.constantFrom('{color}', 'color', '{}'),
      set: fc.string({ maxLength: 20 }),
      reference_name: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['type'] },
  )
  .map((attributes) => ({ data: { type: 'product-variation-modifier', attributes } }));

/**
 * The variation routes: store A's variation, option and modifier as the valid ids (deletes take fresh
 * ones), store B's variation and unknown ids among the others.
 */
function variationRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const V = '/pcm/variations';
  const O = `${V}/{variation_id}/options`;
  const M = `${O}/{option_id}/modifiers`;
  const variationId = segment([ref('variationId')], [ref('otherVariationId')]);
  const optionId = segment([ref('optionId')], [ref('otherVariationId')]);
  const modifierId = segment([ref('modifierId')], [ref('otherVariationId')]);
  const own = { variation_id: variationId, option_id: optionId };
  const optionBody = (id: fc.Arbitrary<string | undefined>) =>
    jsonBody(variationBody('product-variation-option', id, optionName));
  return {
    [`POST ${V}`]: () =>
      requests({
        auth: ADMIN,
        body: jsonBody(variationBody('product-variation', fc.constant(undefined), variationName)),
      }),
    [`GET ${V}`]: () => requests({ auth: ADMIN, query: [pageQuery()] }),
    [`GET ${V}/{variation_id}`]: () => requests({ auth: ADMIN, params: { variation_id: variationId } }),
    [`PUT ${V}/{variation_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { variation_id: variationId },
        body: jsonBody(
          variationBody('product-variation', fc.constantFrom(undefined, ref('variationId')), variationName),
        ),
      }),
    [`DELETE ${V}/{variation_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { variation_id: segment([ref('freshVariationId')], [ref('otherVariationId')]) },
      }),
    [`POST ${O}`]: () =>
      requests({
        auth: ADMIN,
        params: { variation_id: variationId },
        body: optionBody(fc.constant(undefined)),
      }),
    [`GET ${O}`]: () =>
      requests({ auth: ADMIN, params: { variation_id: variationId }, query: [pageQuery()] }),
    [`GET ${O}/{option_id}`]: () => requests({ auth: ADMIN, params: own }),
    [`PUT ${O}/{option_id}`]: () =>
      requests({ auth: ADMIN, params: own, body: optionBody(fc.constant(ref('optionId'))) }),
    [`DELETE ${O}/{option_id}`]: () =>
      requests({
        auth: ADMIN,
        params: {
          variation_id: variationId,
          option_id: segment([ref('freshOptionId')], [ref('otherVariationId')]),
        },
      }),
    [`POST ${M}`]: () => requests({ auth: ADMIN, params: own, body: jsonBody(modifierBody) }),
    [`GET ${M}`]: () => requests({ auth: ADMIN, params: own, query: [pageQuery()] }),
    [`GET ${M}/{modifier_id}`]: () => requests({ auth: ADMIN, params: { ...own, modifier_id: modifierId } }),
    [`PUT ${M}/{modifier_id}`]: () =>
      requests({ auth: ADMIN, params: { ...own, modifier_id: modifierId }, body: jsonBody(modifierBody) }),
    [`DELETE ${M}/{modifier_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { ...own, modifier_id: segment([ref('freshModifierId')], [ref('otherVariationId')]) },
      }),
  };
}

// ---------------------------------------------------------------- hierarchies (/pcm/hierarchies)

const hierarchyBody = (id: fc.Arbitrary<string | undefined>) =>
  fc
    .record({
      id,
      attributes: fc.record(
        {
          name: fc.oneof(
            fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
            fc.constant('h'.repeat(HIERARCHY_NAME_MAX)),
          ),
          description: fc.string({ maxLength: 60 }),
          slug: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/), fc.constantFrom('Fuzz-Slug', 'a b')),
          locales: fc.dictionary(
            fc.constantFrom('en', 'fr-FR', 'de-DE', 'x', 'not a locale'),
            fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }) }),
            { maxKeys: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
    })
    .map(({ id: dataId, attributes }) => ({
      data: { type: 'hierarchy', ...(dataId === undefined ? {} : { id: dataId }), attributes },
    }));

/** The hierarchy routes: store A's hierarchy as the valid id (deletes take fresh ones), store B's among the others. */
function hierarchyRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const H = '/pcm/hierarchies';
  const hierarchyId = segment([ref('hierarchyId')], [ref('otherHierarchyId')]);
  return {
    [`POST ${H}`]: () => requests({ auth: ADMIN, body: jsonBody(hierarchyBody(fc.constant(undefined))) }),
    [`GET ${H}`]: () => requests({ auth: ADMIN, query: [pageQuery()] }),
    [`GET ${H}/{hierarchy_id}`]: () => requests({ auth: ADMIN, params: { hierarchy_id: hierarchyId } }),
    [`PUT ${H}/{hierarchy_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { hierarchy_id: hierarchyId },
        body: jsonBody(hierarchyBody(fc.constantFrom(undefined, ref('hierarchyId')))),
      }),
    [`DELETE ${H}/{hierarchy_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { hierarchy_id: segment([ref('freshHierarchyId')], [ref('otherHierarchyId')]) },
      }),
  };
}

// ---------------------------------------------------------------- nodes (/pcm/hierarchies/{id}/nodes)

/** A node id a body may name: store A's nodes (any case), another store's, a product's, junk. */
const nodeRef = fc.oneof(
  fc.constantFrom(
    ref('nodeId'),
    ref('childNodeId'),
    ref('otherNodeId'),
    ref('productId'),
    ref('hierarchyId'),
  ),
  pcmId,
);
const productRef = fc.oneof(
  fc.constantFrom(ref('productId'), ref('productIdUpper'), ref('otherProductId'), ref('deletedProductId')),
  pcmId,
);

const nodeBody = (id: fc.Arbitrary<string | undefined>) =>
  fc
    .record(
      {
        id,
        attributes: fc.record(
          {
            name: fc.oneof(
              fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
              fc.constantFrom('Fuzz node', 'FUZZ NODE', 'h'.repeat(HIERARCHY_NAME_MAX + 1)),
            ),
            description: fc.string({ maxLength: 40 }),
            slug: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/), fc.constantFrom('fuzz-node', 'a b')),
            curated_products: fc.array(productRef, { maxLength: 3 }),
            locales: fc.dictionary(
              fc.constantFrom('en', 'fr-FR', 'not a locale'),
              fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }) }),
              { maxKeys: 2 },
            ),
          },
          { requiredKeys: [] },
        ),
        parent: fc.option(nodeRef, { nil: undefined }),
        sortOrder: fc.option(fc.oneof(fc.integer(), fc.constantFrom(1.5, 2 ** 40)), { nil: undefined }),
      },
      { requiredKeys: ['attributes'] },
    )
    .map(({ id: dataId, attributes, parent, sortOrder }) => ({
      data: {
        type: 'node',
        ...(dataId === undefined ? {} : { id: dataId }),
        attributes,
        ...(parent === undefined || dataId !== undefined
          ? {}
          : { relationships: { parent: { data: { type: 'node', id: parent } } } }),
        ...(sortOrder === undefined ? {} : { meta: { sort_order: sortOrder } }),
      },
    }));

const typedList = (type: string, ids: fc.Arbitrary<string>) =>
  fc
    .array(fc.record({ id: ids, sortOrder: fc.option(fc.integer(), { nil: undefined }) }), { maxLength: 4 })
    .map((items) => ({
      data: items.map(({ id, sortOrder }) => ({
        type,
        id,
        ...(type === 'node' && sortOrder !== undefined ? { meta: { sort_order: sortOrder } } : {}),
      })),
    }));

/**
 * The node routes: store A's hierarchy and its kept nodes as the valid ids (deletes take fresh ones), store
 * B's among the others; bodies name A's nodes and products, B's, and junk, so moves meet cycles and depth.
 */
function pcmNodeRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const H = '/pcm/hierarchies/{hierarchy_id}';
  const N = `${H}/nodes`;
  const hierarchyId = () => segment([ref('hierarchyId')], [ref('otherHierarchyId')]);
  const nodeId = () => segment([ref('nodeId'), ref('childNodeId')], [ref('otherNodeId'), ref('hierarchyId')]);
  const one = () => ({ hierarchy_id: hierarchyId(), node_id: nodeId() });
  const withBody = (body: () => fc.Arbitrary<Json>) => () =>
    requests({ auth: ADMIN, params: one(), body: jsonBody(body()) });
  const list = (params: () => Record<string, Part<string>>) => () =>
    requests({ auth: ADMIN, params: params(), query: [pageQuery()] });
  return {
    [`POST ${N}`]: () =>
      requests({
        auth: ADMIN,
        params: { hierarchy_id: hierarchyId() },
        body: jsonBody(nodeBody(fc.constant(undefined))),
      }),
    [`GET ${N}`]: list(() => ({ hierarchy_id: hierarchyId() })),
    [`GET ${N}/{node_id}`]: () => requests({ auth: ADMIN, params: one() }),
    [`PUT ${N}/{node_id}`]: withBody(() =>
      nodeBody(fc.constantFrom(undefined, ref('nodeId'), ref('childNodeId'))),
    ),
    [`DELETE ${N}/{node_id}`]: () =>
      requests({
        auth: ADMIN,
        params: { hierarchy_id: hierarchyId(), node_id: segment([ref('freshNodeId')], [ref('otherNodeId')]) },
      }),
    [`GET ${H}/children`]: list(() => ({ hierarchy_id: hierarchyId() })),
    [`GET ${N}/{node_id}/children`]: list(one),
    [`POST ${N}/{node_id}/relationships/children`]: withBody(() => typedList('node', nodeRef)),
    [`PUT ${N}/{node_id}/relationships/parent`]: withBody(() =>
      fc.record({ data: fc.record({ type: fc.constantFrom('node', 'product'), id: nodeRef }) }),
    ),
    [`DELETE ${N}/{node_id}/relationships/parent`]: () => requests({ auth: ADMIN, params: one() }),
    [`POST ${N}/{node_id}/relationships/products`]: withBody(() => typedList('product', productRef)),
    [`DELETE ${N}/{node_id}/relationships/products`]: withBody(() => typedList('product', productRef)),
    [`GET ${N}/{node_id}/products`]: list(one),
    'GET /pcm/products/{product_id}/nodes': list(() => ({
      product_id: segment(
        [ref('productId'), ref('productIdUpper')],
        [ref('otherProductId'), ref('deletedProductId')],
      ),
    })),
  };
}

/** One route to fuzz: its table entry, `METHOD /path`, and its requests. */
export interface FuzzTarget {
  key: string;
  route: RouteDefinition;
  arbitrary: fc.Arbitrary<FuzzRequest>;
}

/** Every entry of ROUTES with its arbitrary; throws when a route has none (or one names no route). */
export function fuzzTargets(): FuzzTarget[] {
  const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
  const missing = keys.filter((key) => !(key in ROUTE_REQUESTS));
  if (missing.length > 0)
    throw new Error(`no fuzz arbitraries for ${missing.join(', ')}: add them to fuzz/routes.ts`);
  const stale = Object.keys(ROUTE_REQUESTS).filter((key) => !keys.includes(key));
  if (stale.length > 0)
    throw new Error(`fuzz/routes.ts names routes not in infra/routes.ts: ${stale.join(', ')}`);
  return ROUTES.map((route, index) => {
    const key = keys[index] as string;
    return { key, route, arbitrary: (ROUTE_REQUESTS[key] as () => fc.Arbitrary<FuzzRequest>)() };
  });
}

// ---------------------------------------------------------------- catalog rules (/pcm/catalogs/rules)

const headerValues = fc.array(
  fc.oneof(
    fc.constantFrom('web', 'mobile', 'VIP', ' ', '', 'c'.repeat(64), 'c'.repeat(65), 'é'),
    fc.string({ maxLength: 20 }),
  ),
  { maxLength: CATALOG_RULE_LIST_MAX + 1 },
);
const ruleTime = fc.oneof(
  fc.constant(null),
  fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
  fc.constantFrom('2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00+02:00', 'soon'),
);
const catalogRuleAttributes = fc.record(
  {
    name: fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
      fc.constantFrom('summer-web', 'has space', '', 'n'.repeat(CATALOG_RULE_NAME_MAX + 1)),
    ),
    description: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constant('d'.repeat(CATALOG_RULE_DESCRIPTION_MAX + 1)),
    ),
    catalog_id: fc.constantFrom(
      ref('catalogId'),
      ref('documentCatalogId'),
      ref('otherCatalogId'),
      ref('deletedCatalogId'),
      'not-a-catalog',
    ),
    account_ids: headerValues,
    customer_ids: headerValues,
    channels: headerValues,
    tags: headerValues,
    schedules: fc.array(fc.record({ valid_from: ruleTime, valid_to: ruleTime }, { requiredKeys: [] }), {
      maxLength: CATALOG_RULE_LIST_MAX + 1,
    }),
  },
  { requiredKeys: [] },
);
const catalogRuleBody = (id: fc.Arbitrary<string | undefined>) =>
  fc.tuple(catalogRuleAttributes, id).map(([attributes, dataId]) => ({
    data: { type: 'catalog_rule', ...(dataId === undefined ? {} : { id: dataId }), attributes },
  }));

/**
 * The catalog rules routes: `ruleId` (the catch-all that keeps shoppers on the sample catalog) is read but
 * never changed; updates and deletes take rules made for the purpose.
 */
function catalogRuleRoutes(): Record<string, () => fc.Arbitrary<FuzzRequest>> {
  const OTHERS = [ref('otherRuleId'), ref('deletedRuleId'), 'rules', 'latestPublished'];
  const ruleId = segment([ref('ruleId'), ref('ruleIdUpper')], OTHERS);
  const idFilter = fc
    .subarray([ref('ruleId'), ref('otherRuleId'), '00000000-0000-4000-8000-000000000000'], { minLength: 1 })
    .map((ids) => [`filter=${encodeURIComponent(`in(id,${ids.join(',')})`)}`]);
  return {
    'POST /pcm/catalogs/rules': () =>
      requests({ auth: ADMIN, body: jsonBody(catalogRuleBody(fc.constant(undefined))) }),
    'GET /pcm/catalogs/rules': () => requests({ auth: ADMIN, query: [pageQuery(), filterQuery(idFilter)] }),
    'GET /pcm/catalogs/rules/{catalog_rule_id}': () =>
      requests({ auth: ADMIN, params: { catalog_rule_id: ruleId } }),
    'PUT /pcm/catalogs/rules/{catalog_rule_id}': () =>
      requests({
        auth: ADMIN,
        params: { catalog_rule_id: segment([ref('freshRuleId')], OTHERS) },
        body: jsonBody(catalogRuleBody(fc.constantFrom(undefined, ref('freshRuleId'), ref('otherRuleId')))),
      }),
    'DELETE /pcm/catalogs/rules/{catalog_rule_id}': () =>
      requests({ auth: ADMIN, params: { catalog_rule_id: segment([ref('freshRuleId')], OTHERS) } }),
  };
}
