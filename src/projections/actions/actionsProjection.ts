import type { ActionFields } from '../../domain/actions/definition.js';
import { actionEvents } from '../../domain/actions/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * A company's actions, listed by name. Header values are not here at all, sealed or not: the list shows which
 * headers an action sends, never what. The sample response is kept as JSON text, so its keys (anything a company's
 * API returns, `$` and `.` included) never become field names of a document store.
 */
export interface ActionDoc extends Doc, Omit<ActionFields, 'sampleResponse'> {
  companyId: string;
  sampleResponseJson: string;
  headerNames: string[];
  createdAt: string;
  updatedAt: string;
}

export const ACTIONS = 'actions';

type Stored = Partial<Omit<ActionFields, 'sampleResponse'>> & { sampleResponse?: unknown; headers?: { name: string }[] };

/** The document's fields from an event's: headers by name only, the sample as text. */
function docFields(fields: Stored): Partial<ActionDoc> {
  const { headers, sampleResponse, ...rest } = fields;
  return {
    ...rest,
    ...(headers !== undefined ? { headerNames: headers.map((h) => h.name) } : {}),
    ...(sampleResponse !== undefined ? { sampleResponseJson: JSON.stringify(sampleResponse) } : {}),
  };
}

export const actionsProjection = defineProjection(actionEvents, {
  name: 'actions',
  collections: [{ name: ACTIONS, indexes: [['companyId', 'name']] }],
  eventTypes: ['ActionCreated', 'ActionUpdated', 'ActionDeleted'],
  async apply(event, ctx) {
    if (event.type === 'ActionCreated') {
      const { actionId, companyId, by: _by, at, ...fields } = event.data;
      ctx.put(ACTIONS, { ...(docFields(fields) as ActionDoc), id: actionId, companyId, createdAt: at, updatedAt: at } satisfies ActionDoc);
      return;
    }
    const doc = await ctx.get<ActionDoc>(ACTIONS, event.data.actionId);
    if (!doc) return;
    if (event.type === 'ActionUpdated') ctx.put(ACTIONS, { ...doc, ...docFields(event.data.changes), updatedAt: event.data.at });
    else ctx.delete(ACTIONS, doc.id);
  },
});
