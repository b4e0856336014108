import { z } from 'zod';
import { CANNED_REPLY_LIMITS } from '../../domain/cannedReplies/events.js';
import { type CannedReply } from '../../domain/cannedReplies/state.js';
import type { CannedReplyDoc } from '../../projections/cannedReplies/cannedRepliesProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

export const cannedReplySchema = z.object({
  id: z.uuid(),
  shortcut: z.string(),
  title: z.string(),
  text: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const cannedReplyView = (r: CannedReply | CannedReplyDoc): z.infer<typeof cannedReplySchema> => ({
  id: r.id,
  shortcut: r.shortcut,
  title: r.title,
  text: r.text,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const writable = {
  // A leading "/" is accepted and dropped; the rest is checked by the domain (lower-case letters, digits, - and _).
  shortcut: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.shortcut + 1),
  title: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.title),
  text: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.text),
};

const tags = ['canned-replies'];
const params = z.object({ id: z.string().max(64) });
const one = z.object({ cannedReply: cannedReplySchema });

export const listCannedRepliesSchema = {
  tags,
  security,
  description: "The company's canned replies, by shortcut.",
  querystring: listQuery,
  response: { 200: z.object({ cannedReplies: z.array(cannedReplySchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const createCannedReplySchema = {
  tags,
  security,
  description: `Adds a canned reply. shortcut: what follows "/" in the reply box (lower-case letters, digits, "-", "_"; at most ${CANNED_REPLY_LIMITS.shortcut}); 409 CONFLICT when another reply uses it. At most ${CANNED_REPLY_LIMITS.count} per company (409 QUOTA_EXCEEDED).`,
  body: z.strictObject(writable),
  response: { 201: one, 409: errorBody, ...errorResponses },
};

export const getCannedReplySchema = { tags, security, params, response: { 200: one, ...errorResponses } };

export const updateCannedReplySchema = {
  tags,
  security,
  params,
  body: z.strictObject({ shortcut: writable.shortcut.optional(), title: writable.title.optional(), text: writable.text.optional() }),
  response: { 200: one, 409: errorBody, ...errorResponses },
};

export const deleteCannedReplySchema = { tags, security, params, response: { 204: z.null(), ...errorResponses } };
