import { z } from 'zod';
import { CATALOG_VERSION, publicEventSchema, publicEventTypes } from '../../domain/publicEvents/catalog.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const tags = ['events'];

export const listPublicEventsSchema = {
  tags,
  security,
  description:
    `The company's public events (catalog version ${CATALOG_VERSION}: ${publicEventTypes.join(', ')}), oldest first, ` +
    'the same ones its webhook endpoints receive. `after`: the nextCursor of the previous page (absent: from the first event); ' +
    'nextCursor is returned even on the last page, so a consumer polls with it. `types`: a comma-separated list of types.',
  querystring: z.strictObject({
    after: z.string().max(200).optional(),
    types: z.string().max(2000).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  }),
  response: {
    200: z.object({ events: z.array(publicEventSchema), nextCursor: z.string(), hasMore: z.boolean(), catalogVersion: z.literal(CATALOG_VERSION) }),
    ...errorResponses,
  },
};
