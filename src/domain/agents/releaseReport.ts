import type { DraftAnswer, RecordedAnswer } from '../replays/events.js';

/**
 * One replayed customer turn of a release check, side by side: the current answer (what the conversation
 * recorded: the AI answer customers got, or a person's) against the checked version's answer, with what changed.
 * The current side is the recorded answer rather than a fresh one by the published version, so a check costs
 * one answer per turn, and compares against what customers actually got.
 */
export type SideAnswer = {
  kind: 'agent' | 'operator' | 'unanswered' | 'none' | 'failed';
  text: string | null;
  handoff: boolean;
  /** The knowledge documents the answer drew on. */
  documentIds: string[];
  chars: number;
  /** micro-dollars; null when not known (a person's answer, an answer recorded before costs were). */
  costMicros: number | null;
};

export type TurnChanges = {
  /** Handing off now where it did not (or the reverse). */
  handoff: 'same' | 'now_hands_off' | 'no_longer_hands_off';
  sourcesAdded: string[];
  sourcesRemoved: string[];
  /** draft chars - current chars. */
  lengthDelta: number;
  /** null when either cost is not known. */
  costDeltaMicros: number | null;
};

const documents = (sources: { documentId: string }[] | undefined) => [...new Set((sources ?? []).map((s) => s.documentId))];

export function currentSide(recorded: RecordedAnswer): SideAnswer {
  switch (recorded.kind) {
    case 'agent': {
      const costMicros = recorded.provenance?.costMicros ?? (recorded.model === 'builtin' ? 0 : null);
      return { kind: 'agent', text: recorded.text, handoff: recorded.handoff, documentIds: documents(recorded.provenance?.sources), chars: recorded.text.length, costMicros };
    }
    case 'operator':
      return { kind: 'operator', text: recorded.text, handoff: false, documentIds: [], chars: recorded.text.length, costMicros: null };
    case 'unanswered':
      // No AI answer went out: the customer waited for a person.
      return { kind: 'unanswered', text: null, handoff: true, documentIds: [], chars: 0, costMicros: 0 };
    case 'none':
      return { kind: 'none', text: null, handoff: false, documentIds: [], chars: 0, costMicros: 0 };
  }
}

export function draftSide(draft: DraftAnswer): SideAnswer {
  if (draft.status === 'failed') return { kind: 'failed', text: null, handoff: false, documentIds: [], chars: 0, costMicros: 0 };
  return { kind: 'agent', text: draft.text, handoff: draft.handoff, documentIds: documents(draft.provenance.sources), chars: draft.text.length, costMicros: draft.provenance.costMicros };
}

export function compareTurn(current: SideAnswer, draft: SideAnswer): TurnChanges {
  const handoff = current.handoff === draft.handoff ? 'same' : draft.handoff ? 'now_hands_off' : 'no_longer_hands_off';
  return {
    handoff,
    sourcesAdded: draft.documentIds.filter((d) => !current.documentIds.includes(d)),
    sourcesRemoved: current.documentIds.filter((d) => !draft.documentIds.includes(d)),
    lengthDelta: draft.chars - current.chars,
    costDeltaMicros: current.costMicros === null || draft.costMicros === null ? null : draft.costMicros - current.costMicros,
  };
}
