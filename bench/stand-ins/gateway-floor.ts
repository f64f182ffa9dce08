import { createGatewayServer, listen } from '../../local/gateway';

/**
 * The local gateway (`local/gateway.ts`, what fronts all three local servers) in front of a function that
 * answers at once with fixed bytes: what the harness alone costs per request, without middy, auth, the
 * limiter or the catalog. bench/local-server.ts runs it beside `npm start`'s server and bare node:http.
 * FLOOR_BODY (base64) and FLOOR_HEADERS (JSON) are the bytes and headers to answer with.
 */
const body = Buffer.from(process.env.FLOOR_BODY ?? '', 'base64').toString('utf8');
const headers = JSON.parse(process.env.FLOOR_HEADERS ?? '{}') as Record<string, string>;
const server = createGatewayServer<string>({
  routes: [{ method: 'GET', path: '/catalog/products/{product_id}/relationships/children', target: 'floor' }],
  invoke: async () => ({ statusCode: 200, headers, body }),
  describeError: (error) => String(error),
});
listen(server, Number(process.env.PORT)).then(() => console.log('ready'));
