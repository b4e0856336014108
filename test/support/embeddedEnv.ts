/**
 * The environment for a service or CLI child process that must use the embedded engines (SQLite files in
 * its DATA_DIR, the in-process bus): this process's environment without the production engines' URLs. CI
 * may set EVENTSTORE_URL / MONGODB_URI / DATABASE_URL for the contract suites; a child inheriting them would share one
 * database with every other test, or open a different store than the test server it talks to.
 */
export function embeddedEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { EVENTSTORE_URL: _es, MONGODB_URI: _mongo, MONGODB_DB: _db, NATS_URL: _nats, DATABASE_URL: _pg, MAS_TEST_STORE: _store, ...rest } = process.env;
  return { ...rest, ...overrides };
}
