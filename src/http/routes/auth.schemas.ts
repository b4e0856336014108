import { z } from 'zod';
import { roleSchema } from '../../domain/accounts/team/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const email = z.string().trim().max(254).pipe(z.email({ message: 'must be an email address' }));
export const newPassword = z.string().min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters');

export const sessionSchema = z.object({ access_token: z.string(), refresh_token: z.string(), expires_at: z.number().int() });

export const registerSchema = {
  tags: ['auth'],
  body: z.strictObject({ email, password: newPassword, companyName: z.string().trim().min(1).max(200) }),
  response: {
    201: z.object({
      user: z.object({ id: z.uuid(), email: z.string() }),
      company: z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string() }),
    }),
    ...errorResponses,
  },
};

export const loginSchema = {
  tags: ['auth'],
  // Login does not re-check the password rules: a stored account must always be able to try.
  body: z.strictObject({ email: z.string().max(254), password: z.string().max(1024) }),
  response: {
    200: z.object({ session: sessionSchema, user: z.object({ id: z.uuid(), email: z.string(), companyId: z.number().int() }) }),
    ...errorResponses,
  },
};

export const refreshSchema = {
  tags: ['auth'],
  body: z.strictObject({ refresh_token: z.string().max(512) }),
  response: { 200: z.object({ session: sessionSchema }), ...errorResponses },
};

export const logoutSchema = { tags: ['auth'], security, response: { 204: z.null(), ...errorResponses } };

export const meSchema = {
  tags: ['auth'],
  security,
  response: {
    200: z.object({
      user: z.object({
        id: z.uuid(),
        email: z.string(),
        companyId: z.number().int(),
        isSuperadmin: z.boolean(),
        /** Beyond the spec: the user's team role (owner, admin, agent); the dashboard hides what the role may not use. */
        role: roleSchema,
      }),
      company: z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string(), createdAt: z.string() }),
    }),
    ...errorResponses,
  },
};
