import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../domain/errors.js';
import { StoreBusyError } from '../ports/errors.js';
import { InvalidCursorError } from '../ports/readStore.js';
import { domainStatus, HttpError } from './errors.js';

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

const MAX_ISSUES_SHOWN = 10;

const body = (code: string, message: string): ErrorBody => ({ error: { code, message } });

/**
 * The one place errors become responses. Anything unexpected is logged with its stack and answered
 * 500 INTERNAL_ERROR with a generic message, so no stack or internal detail reaches a client.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(answerError);

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(body('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}

/**
 * Every error a request can end in, as `{error:{code,message}}`. Also fastify's `frameworkErrors` (given to the
 * constructor in app.ts): errors the router meets before any route or hook, such as a malformed %-escape,
 * which fastify otherwise answers with a body of its own.
 */
export function answerError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof HttpError) {
    if (err.statusCode === 429 && !reply.getHeader('retry-after')) reply.header('retry-after', String(err.retryAfterSeconds ?? 60));
    return reply.status(err.statusCode).send(body(err.code, err.message));
  }
  if (err instanceof DomainError) {
    if (err.code === 'RATE_LIMITED') reply.header('retry-after', '5');
    const answer = body(err.code, err.message);
    if (err.details) answer.error.details = err.details;
    return reply.status(domainStatus[err.code] ?? 400).send(answer);
  }
  // Every list passes ?cursor= straight to the read store, which is the one that can tell a cursor it
  // did not hand out: answered here so no list route can forget it (it used to be a 500).
  if (err instanceof InvalidCursorError) {
    return reply.status(400).send(body('VALIDATION_ERROR', `querystring.cursor: ${err.message}`));
  }
  // Nothing was written and a retry will do: the platform retries a 503, and so does the dashboard's user.
  if (err instanceof StoreBusyError) {
    request.log.warn({ err }, 'event store busy: request refused with 503');
    return reply.status(503).header('retry-after', '1').send(body('SERVICE_UNAVAILABLE', 'The service is busy; nothing was stored, try again shortly'));
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    // Every field at once, so a form or a hand-written request is fixed in one round trip (bounded).
    const where = err.validationContext ?? 'body';
    const issues = err.validation.map((issue) => {
      const path = issue.instancePath ? issue.instancePath.replace(/^\//, '').replaceAll('/', '.') : '';
      return `${path ? `${where}.${path}` : where}: ${issue.message ?? 'invalid'}`;
    });
    const shown = [...new Set(issues)].slice(0, MAX_ISSUES_SHOWN);
    const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : '';
    return reply.status(400).send(body('VALIDATION_ERROR', (shown.join('; ') || `${where}: invalid`) + more));
  }
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      // Not echoed: the path is what could not be decoded.
      return reply.status(400).send(body('VALIDATION_ERROR', 'The URL path is not valid: it has a malformed %-escape'));
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return reply.status(400).send(body('VALIDATION_ERROR', 'A path parameter is too long'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.status(413).send(body('PAYLOAD_TOO_LARGE', 'Request body is too large'));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.status(415).send(body('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply.status(400).send(body('VALIDATION_ERROR', 'Request body is empty'));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return reply.status(400).send(body('VALIDATION_ERROR', 'Content-Length does not match the body'));
  }
  if (err.statusCode === 429) {
    return reply.status(429).send(body('RATE_LIMITED', 'Too many requests, try again later'));
  }
  // JSON.parse failures and __proto__ poisoning from fastify's JSON parser arrive as 400s.
  if (err.statusCode === 400 && (err instanceof SyntaxError || /JSON|prototype|constructor/i.test(err.message))) {
    return reply.status(400).send(body('VALIDATION_ERROR', 'Request body is not valid JSON'));
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return reply.status(err.statusCode).send(body('BAD_REQUEST', 'The request could not be processed'));
  }
  request.log.error({ err }, 'unhandled error');
  return reply.status(500).send(body('INTERNAL_ERROR', 'Internal server error'));
}

/** What fastify's default client-error handler answers, in the spec's shape: a timeout, oversized headers, not HTTP. */
const CLIENT_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE', message: 'Request headers are too large' },
};
const NOT_HTTP = { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP' };

/**
 * The raw response to a connection Node's HTTP parser gave up on (no request object exists, so no handler
 * runs): the spec's error shape instead of fastify's `{"error":"Bad Request","message":"Client Error",…}`.
 * Null when there is no one to answer (the peer reset the connection).
 */
export function clientErrorResponse(err: Error & { code?: string }): string | null {
  if (err.code === 'ECONNRESET') return null;
  const { status, code, message } = (err.code && CLIENT_ERRORS[err.code]) || NOT_HTTP;
  const json = JSON.stringify(body(code, message));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${json}`;
}

/** fastify's `clientErrorHandler` (given in app.ts), writing clientErrorResponse as Node's own would. */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  const response = socket.destroyed ? null : clientErrorResponse(err);
  if (response && socket.writable) socket.write(response);
  socket.destroy(err);
}

