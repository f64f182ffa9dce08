import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ForbiddenError } from '../http/errors';
import { log } from '../http/log';
import type { HttpResponse } from '../http/response';
import { type AuthContext, authenticate, claimedStoreId } from './authenticate';

/** `none`: public route; `any`: any valid token; `admin`: a client_credentials token. */
export type AuthRequirement = 'none' | 'any' | 'admin';

/** An event once the authorizer ran: the caller's store and token kind (none on public routes). */
export type AuthorizedEvent<A extends AuthRequirement = AuthRequirement> = APIGatewayProxyEventV2 & {
  auth: A extends 'none' ? undefined : AuthContext;
};

/**
 * Reads that depend only on the store the token claims, started while the token is checked (their
 * results must reach the caller only through the handler, which runs once the token is valid).
 */
export type Prefetch = (claimedStoreId: string | undefined) => void;

/**
 * Resolves the bearer token into the store and token kind; 401 when invalid, 403 when not allowed here.
 * `fresh` (routes that write): the token and its key are read from the table on every request, never
 * from the container's cache, so deleting a leaked key stops its tokens' writes at once.
 */
export function authorizer(
  requirement: AuthRequirement,
  prefetch?: Prefetch,
  fresh = false,
): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  return {
    before: async (request) => {
      if (requirement === 'none') return;
      const header = request.event.headers.authorization;
      prefetch?.(claimedStoreId(header));
      const auth = await authenticate(header, { fresh });
      if (requirement === 'admin' && auth.kind !== 'client_credentials') throw new ForbiddenError();
      (request.event as AuthorizedEvent<'any'>).auth = auth;
      log('debug', 'authenticated', { token_kind: auth.kind, store_id: auth.storeId });
    },
  };
}
