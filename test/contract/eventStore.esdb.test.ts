import { afterAll, beforeAll, describe } from 'vitest';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { openEsdbEventStore } from '../../src/infrastructure/eventstoredb/esdbEventStore.js';
import { engineTarget } from '../support/engines.js';
import { eventStoreContract } from './eventStoreContract.js';

// EVENTSTORE_URL (e.g. esdb://localhost:2113?tls=false) → that server; otherwise a throwaway container when
// Docker is reachable; otherwise one printed skip line.
const target = engineTarget('EventStoreDB', 'EVENTSTORE_URL');

describe.skipIf(target.mode === 'skip')('EventStoreDB adapter', () => {
  let container: StartedTestContainer | undefined;
  let url = target.mode === 'url' ? target.url : '';

  beforeAll(async () => {
    if (target.mode !== 'docker') return;
    container = await new GenericContainer('eventstore/eventstore:24.10')
      .withEnvironment({
        EVENTSTORE_INSECURE: 'true',
        EVENTSTORE_RUN_PROJECTIONS: 'All',
        EVENTSTORE_MEM_DB: 'true',
        EVENTSTORE_CLUSTER_SIZE: '1',
      })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
      .withStartupTimeout(180_000)
      .start();
    url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  }, 240_000);

  afterAll(async () => {
    await container?.stop();
  });

  eventStoreContract(
    'eventstoredb',
    async () => {
      const store = openEsdbEventStore(url);
      return { store, cleanup: () => store.close() };
    },
    { eventIdsUniqueAcrossStreams: false },
  );
});
