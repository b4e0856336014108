import { SqliteEventStore } from '../src/infrastructure/sqlite/sqliteEventStore.js';
import { SqliteReadStore } from '../src/infrastructure/sqlite/sqliteReadStore.js';
import { allProjections } from '../src/projections/index.js';
import { rebuildProjections } from '../src/processing/projectionRunner.js';
import { silentLogger } from '../src/ports/logger.js';
import { rmSync } from 'node:fs';
const [dir, names] = process.argv.slice(2);
const es = new SqliteEventStore(`${dir}/events.sqlite`);
const ps = allProjections.filter((p) => names!.split(',').includes(p.name));
for (let i = 0; i < 3; i++) {
  rmSync('/tmp/projcost/rm.sqlite', { force: true });
  const rs = SqliteReadStore.open({ path: '/tmp/projcost/rm.sqlite' });
  const t = process.cpuUsage();
  await rebuildProjections({ eventStore: es, readStore: rs, projections: ps, logger: silentLogger, batchSize: 50 });
  const u = process.cpuUsage(t);
  console.log(names, ((u.user + u.system) / 1000).toFixed(0), 'ms');
  await rs.close();
}
