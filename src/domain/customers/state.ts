import { ERASED_TEXT, type ChannelProfile, type CustomerEvent } from './events.js';

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
  /** Erased and not heard from since (a later channel message makes the customer known again, under a new key). */
  erased: boolean;
  /** The conversations named by their erasures (ids only): erased again when the customer wrote there since. */
  erasedConversationIds: string[];
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
          erased: false,
          erasedConversationIds: [],
        };
      }
      return { ...state, profile: { ...state.profile, ...d.changes }, updatedAt: d.at, erased: false };
    }
    case 'CustomerNoteSet':
      return state.status === 'none' ? state : { ...state, note: event.data.note, noteUpdatedBy: event.data.by, noteUpdatedAt: event.data.at, updatedAt: event.data.at };
    case 'CustomerTagsSet':
      return state.status === 'none' ? state : { ...state, tags: event.data.tags, updatedAt: event.data.at };
    // The audit of an export changes nothing about the customer.
    case 'CustomerExported':
      return state;
    case 'CustomerErased':
      return state.status === 'none'
        ? state
        : {
            ...state,
            clientId: ERASED_TEXT,
            profile: {},
            note: '',
            noteUpdatedBy: null,
            noteUpdatedAt: null,
            tags: [],
            updatedAt: event.data.at,
            erased: true,
            erasedConversationIds: [...new Set([...state.erasedConversationIds, ...event.data.conversationIds])],
          };
  }
}
