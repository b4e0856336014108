import { describe, expect, it } from 'vitest';
import { chargeUsage, type Usage } from '../../src/commands/credits/chargeUsage.js';
import { deterministicId } from '../../src/commands/hashing.js';
import { creditsStream } from '../../src/domain/credits/decider.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../src/ports/logger.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const pricing = { table: { 'gpt-4o-mini': { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } }, defaultPrice: { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } };
const usage = (replyId: string): Usage => ({ companyId: CO, conversationId: 'conv-1', replyId, model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 1000 });

function setup() {
  const eventStore = new MemoryEventStore();
  return { eventStore, deps: { eventStore, clock: { now: () => new Date('2026-01-01T00:00:00Z') }, logger: silentLogger, pricing } };
}

describe('chargeUsage: one charge per reply, its event id derived from the reply id', () => {
  it('the CreditsConsumed event of a reply has the id derived from that reply', async () => {
    const { eventStore, deps } = setup();
    await chargeUsage(deps, usage('reply-1'));
    const [charge] = await eventStore.readStream(creditsStream(CO));
    expect(charge).toMatchObject({ type: 'CreditsConsumed', id: deterministicId('charge:reply-1:CreditsConsumed'), data: { replyId: 'reply-1' } });
  });

  it('a reply charged again after 200 newer charges (beyond the decider window) appends nothing: the store refuses its id', async () => {
    const { eventStore, deps } = setup();
    await chargeUsage(deps, usage('reply-old'));
    for (let i = 0; i < 200; i++) await chargeUsage(deps, usage(`reply-${i}`));
    const result = await chargeUsage(deps, usage('reply-old'));
    expect(result?.events).toEqual([]);
    const charges = (await eventStore.readStream(creditsStream(CO))).filter((e) => (e.data as { replyId: string }).replyId === 'reply-old');
    expect(charges).toHaveLength(1);
  });
});
