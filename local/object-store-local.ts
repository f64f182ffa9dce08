import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Config, getConfig } from '../lib/config/index';
import { portFree, portInUseMessage } from './ports';

/*
 * The local object store: @20minutes/s3rver (the maintained fork of s3rver; docs/publishing.md says why
 * this one), an S3-compatible server written in JavaScript, run in this process as DynamoDB Local runs
 * beside it. It keeps objects as files, verifies SigV4 signatures (header and pre-signed) made with its
 * one key pair (LOCAL_S3_CREDENTIALS in lib/store/object-urls.ts), refuses expired pre-signed URLs and
 * serves ranged GETs and multipart uploads, which is what the documents bucket needs. A front of ours
 * refuses the requests it would serve unsigned (`refuseUnsigned`).
 */

/** The part of s3rver's API used here (the package ships no types). */
interface S3rverServer {
  run(): Promise<AddressInfo>;
  /** Koa's: the request handler its HTTP server is given when `run` listens. */
  callback(): (request: IncomingMessage, response: ServerResponse) => unknown;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  vhostBuckets: boolean;
  configureBuckets: { name: string }[];
}) => S3rverServer;

/** A Koa context, as far as the listing handler below uses it. */
interface ListContext {
  query: Record<string, string | string[] | undefined>;
  body?: { ListBucketResult?: ListBucketResult };
}
interface ListBucketResult {
  Marker?: string;
  NextMarker?: string;
  IsTruncated: boolean;
  Contents: { Key: string; Owner?: unknown }[];
  CommonPrefixes: unknown[];
  [member: string]: unknown;
}
interface BucketController {
  getBucket(ctx: ListContext): Promise<void>;
  listV2WithoutDes?: true;
}

/**
 * s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node 17 and later) no longer
 * has: every truncated listing (over 1,000 keys, or MaxKeys) answers 500. Its handler (looked up by its
 * router at each request, after the signature check) is wrapped to list through its ListObjects (V1) path,
 * which pages with a marker, and to answer in V2's shape with a token of its own: the last key, base64url.
 */
function listObjectsV2WithoutDes(controller: BucketController): void {
  if (controller.listV2WithoutDes) return;
  controller.listV2WithoutDes = true;
  const listV1 = controller.getBucket;
  controller.getBucket = async (ctx) => {
    const {
      'list-type': listType,
      'continuation-token': token,
      'start-after': startAfter,
      'fetch-owner': _fetchOwner,
      ...rest
    } = ctx.query;
    if (listType !== '2') return listV1(ctx);
    const marker = typeof token === 'string' ? Buffer.from(token, 'base64url').toString('utf8') : startAfter;
    ctx.query = marker === undefined ? rest : { ...rest, marker };
    await listV1(ctx);
    const result = ctx.body?.ListBucketResult;
    if (!result) return;
    const { Marker: _marker, NextMarker, ...common } = result;
    const last = NextMarker ?? result.Contents.at(-1)?.Key;
    ctx.body = {
      ListBucketResult: {
        ...common,
        ...(token === undefined ? { StartAfter: startAfter } : { ContinuationToken: token }),
        NextContinuationToken:
          result.IsTruncated && last !== undefined
            ? Buffer.from(last, 'utf8').toString('base64url')
            : undefined,
        KeyCount: result.Contents.length + result.CommonPrefixes.length,
        Contents: result.Contents.map(({ Owner: _owner, ...object }) => object),
      },
    };
  };
}

/**
 * s3rver checks a request's signature only when it has one: its authentication middleware serves a
 * request with neither an `Authorization` header nor a signature in its query (`X-Amz-Algorithm`, or
 * SigV2's `Signature`) as if it were signed, so anyone on the machine could list, read, overwrite and
 * delete every store's documents. S3 answers such a request to a private bucket 403 AccessDenied; so does
 * this front, before s3rver sees it. A request that has a signature goes on to s3rver, which refuses a
 * wrong one (SignatureDoesNotMatch, InvalidAccessKeyId, an expired URL: 403). CORS preflights (`OPTIONS`)
 * carry no credentials, in S3 too, and go through.
 */
function refuseUnsigned(server: S3rverServer): void {
  const callback = server.callback.bind(server);
  server.callback = () => {
    const handle = callback();
    return (request, response) => {
      if (request.method === 'OPTIONS' || isSigned(request)) return handle(request, response);
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end(request.method === 'HEAD' ? undefined : ACCESS_DENIED);
    };
  };
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

/** True when s3rver will verify the request's signature: the mechanisms it tells apart, named as it names them. */
function isSigned(request: IncomingMessage): boolean {
  if (request.headers.authorization !== undefined) return true;
  const query = new URL(request.url ?? '/', 'http://local').searchParams;
  return query.has('X-Amz-Algorithm') || query.has('Signature');
}

export interface ObjectStoreLocal {
  /** `http://127.0.0.1:PORT`, for S3_ENDPOINT. */
  endpoint: string;
  port: number;
  /** Where the objects are kept. */
  directory: string;
  /** Stops the server (dropping open connections) and removes a temporary directory. */
  stop(): Promise<void>;
}

export interface ObjectStoreLocalOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Folder for the objects (created if missing, kept on stop); a temporary one, removed on stop, when absent. */
  directory?: string;
  /** Buckets to create at start (existing ones are kept); default: the configured DOCUMENTS_BUCKET. */
  buckets?: string[];
}

/** Starts the local S3-compatible server on 127.0.0.1, silent, with its buckets created. */
export async function startObjectStoreLocal(
  options: ObjectStoreLocalOptions = {},
): Promise<ObjectStoreLocal> {
  const temporary = options.directory === undefined;
  const directory =
    options.directory === undefined ? mkdtempSync(join(tmpdir(), 's3rver-')) : resolve(options.directory);
  mkdirSync(directory, { recursive: true });
  const removeTemporary = () => {
    if (temporary) rmSync(directory, { recursive: true, force: true });
  };
  const requestedPort = options.port ?? 0;
  // s3rver leaves a failed listen as an unhandled 'error' event (the process dies): look first.
  if (requestedPort !== 0 && !(await portFree(requestedPort))) {
    removeTemporary();
    throw new Error(portInUseMessage(requestedPort, 'S3_PORT'));
  }
  // Loaded here, not at import: the harness imports this module for objectStoreEnvironment too.
  const load = createRequire(import.meta.url);
  const S3rver = load('@20minutes/s3rver') as S3rverClass;
  listObjectsV2WithoutDes(load('@20minutes/s3rver/lib/controllers/bucket') as BucketController);
  const server = new S3rver({
    address: '127.0.0.1',
    port: requestedPort,
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: (options.buckets ?? [getConfig().documentsBucket]).map((name) => ({ name })),
  });
  refuseUnsigned(server);
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    removeTemporary();
    throw error;
  }
  let stopped = false;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    directory,
    async stop() {
      if (stopped) return;
      stopped = true;
      const closing = server.close();
      // close() waits for every keep-alive connection of every client: end them.
      server.httpServer?.closeAllConnections();
      await closing;
      removeTemporary();
    },
  };
}

/** True when 127.0.0.1:port can be listened on. */
/**
 * What the local harness adds to a function's environment for the object store, as it does for the tables:
 * the bucket, and the endpoint when it is a local one (lib/store/object-store.ts then signs with s3rver's keys).
 */
export function objectStoreEnvironment(config: Config): Record<string, string> {
  return {
    DOCUMENTS_BUCKET: config.documentsBucket,
    ...(config.s3Endpoint === undefined ? {} : { S3_ENDPOINT: config.s3Endpoint }),
  };
}
