import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addNote } from '../../commands/conversations/notes.js';
import { idForKey } from '../../commands/idempotentStart.js';
import { configureNoteSharing, loadNoteSharing } from '../../commands/settings/noteSharing.js';
import { DomainError } from '../../domain/errors.js';
import { findCompanyConversation, findMessage } from '../../projections/conversations/queries.js';
import { listTeammates } from '../../projections/teammates/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import { idempotencyKeyOf, markRepeated } from '../idempotencyKey.js';
import type { HttpServices } from '../services.js';
import { messageView } from './conversations.schemas.js';
import { addNoteSchema, getNoteSharingSchema, setNoteSharingSchema } from './notes.schemas.js';

/** Teammates an @name can mention: the first page of the company's team (a team is far smaller). */
const MENTIONABLE = 200;

/**
 * POST /api/conversations/:id/notes (every role: whoever works conversations writes notes) and GET/PUT
 * /api/settings/notes (owners and admins, by the role policy's /api/settings rule).
 */
export function noteRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.post('/api/conversations/:id/notes', { schema: addNoteSchema }, async (request, reply) => {
      const auth = authOf(request);
      const id = request.params.id;
      const conversation = z.uuid().safeParse(id).success ? await findCompanyConversation(services.readStore, auth.companyId, id) : null;
      if (!conversation) throw notFound('Conversation');
      const team = await listTeammates(services.readStore, auth.companyId, { limit: MENTIONABLE });
      const key = idempotencyKeyOf(request);
      const keyed = key ? idForKey(auth.companyId, 'note', key.key, conversation.id) : undefined;
      const mentionable = team.items.map((t) => ({ userId: t.id, name: t.name, email: t.email }));
      const result = await addNote(services.commands, auth, conversation.id, request.body.text, mentionable, keyed);
      const repeated = keyed !== undefined && result.events.length === 0;
      await services.waitForProjections(repeated ? await services.commands.eventStore.headPosition() : result.position);
      const note = await findMessage(services.readStore, result.noteId);
      if (!note) throw notFound('Note');
      if (repeated && note.text !== request.body.text.trim()) throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different note: send a new key with a new note');
      return markRepeated(reply, repeated).status(201).send({ note: messageView(note) });
    });

    app.get('/api/settings/notes', { schema: getNoteSharingSchema }, async (request) => ({
      notes: await loadNoteSharing(services.commands.eventStore, authOf(request).companyId),
    }));

    app.put('/api/settings/notes', { schema: setNoteSharingSchema }, async (request) => {
      const auth = authOf(request);
      const result = await configureNoteSharing(services.commands, { companyId: auth.companyId, userId: auth.userId, shareWithAi: request.body.shareWithAi });
      return { notes: result.state };
    });
  };
}
