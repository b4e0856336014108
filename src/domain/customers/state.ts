import type { ChannelProfile, CustomerEvent } from './events.js';

export interface KnownCustomer {
  status: 'known';
  customerId: string;
  companyId: string;
  integrationId: number;
  clientId: string | number;
  profile: ChannelProfile;
  note: string;
  noteUpdatedBy: string | null;
  noteUpdatedAt: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}
export type CustomerState = { status: 'none' } | KnownCustomer;

export const initialCustomerState: CustomerState = { status: 'none' };

export function evolveCustomer(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'CustomerProfileUpdated': {
      const d = event.data;
      if (state.status === 'none') {
        return {
          status: 'known',
          customerId: d.customerId,
          companyId: d.companyId,
          integrationId: d.integrationId,
          clientId: d.clientId,
          profile: { ...d.changes },
          note: '',
          noteUpdatedBy: null,
          noteUpdatedAt: null,
          tags: [],
          createdAt: d.at,
          updatedAt: d.at,
        };
      }
      return { ...state, profile: { ...state.profile, ...d.changes }, updatedAt: d.at };
    }
    case 'CustomerNoteSet':
      return state.status === 'none' ? state : { ...state, note: event.data.note, noteUpdatedBy: event.data.by, noteUpdatedAt: event.data.at, updatedAt: event.data.at };
    case 'CustomerTagsSet':
      return state.status === 'none' ? state : { ...state, tags: event.data.tags, updatedAt: event.data.at };
  }
}
