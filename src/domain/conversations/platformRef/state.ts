import type { PlatformRefEvent } from './events.js';

export type PlatformRefState = { conversationId: string | null };

export const initialPlatformRefState: PlatformRefState = { conversationId: null };

export const evolvePlatformRef = (_state: PlatformRefState, event: PlatformRefEvent): PlatformRefState => ({ conversationId: event.data.conversationId });
