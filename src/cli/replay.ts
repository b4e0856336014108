/**
 * `npm run replay -- <conversationId>`: prints a conversation's timeline straight from the event store
 * (the audit trail), one line per event, with its revision, position, time and what happened.
 */
import { loadConfig } from '../config.js';
import { openEventStore } from '../infrastructure/adapters.js';
import { createLogger } from '../infrastructure/logger.js';
import { describeEvent } from './describeEvent.js';
import { runCli } from './runCli.js';

async function main(): Promise<number> {
  const conversationId = process.argv[2];
  if (!conversationId || !/^[0-9a-f-]{36}$/i.test(conversationId)) {
    console.error('usage: npm run replay -- <conversationId>');
    return 2;
  }
  const config = loadConfig();
  const store = await openEventStore(config, createLogger({ level: 'warn' }));
  try {
    const events = await store.readStream(`conversation-${conversationId}`);
    if (events.length === 0) {
      console.error(`no events for conversation ${conversationId}`);
      return 1;
    }
    for (const e of events) console.log(`#${e.revision}\t@${e.position}\t${e.createdAt}\t${e.type}\t${describeEvent(e)}`);
    return 0;
  } finally {
    await store.close();
  }
}

runCli(main);
