import { z } from 'zod';

const MAX_ID_LENGTH = 256;

/**
 * Platform ids (client, channel, message, request, dialog, webhook) arrive as numbers or strings and are
 * sent back exactly as they came, so neither form is converted to the other.
 */
export const platformIdSchema = z.union([z.string().min(1).max(MAX_ID_LENGTH), z.number().int()], {
  error: 'expected a non-empty string or an integer id',
});
export type PlatformId = z.infer<typeof platformIdSchema>;
