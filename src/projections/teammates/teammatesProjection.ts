import { teamEvents, type Role } from '../../domain/accounts/team/events.js';
import { userEvents } from '../../domain/accounts/user/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** The Team page list: one document per user who joined a company (removed ones stay, marked). */
export interface TeammateDoc extends Doc {
  companyId: string;
  email: string;
  name: string | null;
  role: Role;
  status: 'active' | 'removed';
  joinedAt: string;
}

export const TEAMMATES = 'teammates';

export const teammatesProjection = defineProjection(
  { ...teamEvents, ...userEvents },
  {
    name: 'teammates',
    collections: [{ name: TEAMMATES, indexes: [['companyId', 'status', 'joinedAt']] }],
    eventTypes: ['TeamMemberJoined', 'TeamMemberRoleChanged', 'TeamMemberRemoved', 'TeamMemberRenamed', 'UserRegistered'],
    async apply(event, ctx) {
      if (event.type === 'UserRegistered') {
        // Team members are recorded on the team stream before their user; a user with no document yet is the
        // owner of a company registered before teams existed.
        if (await ctx.get(TEAMMATES, event.data.userId)) return;
        ctx.put(TEAMMATES, {
          id: event.data.userId,
          companyId: event.data.companyId,
          email: event.data.email,
          name: null,
          role: 'owner',
          status: 'active',
          joinedAt: event.data.createdAt,
        } satisfies TeammateDoc);
        return;
      }
      const companyId = event.stream.slice('team-'.length);
      if (event.type === 'TeamMemberJoined') {
        ctx.put(TEAMMATES, {
          id: event.data.userId,
          companyId,
          email: event.data.email,
          name: event.data.name,
          role: event.data.role,
          status: 'active',
          joinedAt: event.data.at,
        } satisfies TeammateDoc);
        return;
      }
      const doc = await ctx.get<TeammateDoc>(TEAMMATES, event.data.userId);
      if (!doc || doc.companyId !== companyId) return;
      if (event.type === 'TeamMemberRenamed') ctx.put(TEAMMATES, { ...doc, name: event.data.name });
      else ctx.put(TEAMMATES, event.type === 'TeamMemberRoleChanged' ? { ...doc, role: event.data.role } : { ...doc, status: 'removed' });
    },
  },
);
