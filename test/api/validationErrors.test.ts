import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** A 400 names every field that is wrong, so a request is fixed in one round trip, not one field at a time. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const register = (payload: unknown) =>
  server.app.inject({ method: 'POST', url: '/api/auth/register', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

describe('VALIDATION_ERROR messages', () => {
  it('given a body with three fields wrong, then the message names all three', async () => {
    const res = await register({ email: 'not-an-email', password: 1234, companyName: 'c'.repeat(201) });
    expect(res.statusCode).toBe(400);
    const { error } = res.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(/body\.email: /);
    expect(error.message).toMatch(/body\.password: /);
    expect(error.message).toMatch(/body\.companyName: /);
  });

  it('given an empty object, then every missing field is named once', async () => {
    const res = await register({});
    const { message } = (res.json() as { error: { message: string } }).error;
    expect(message.split('; ').map((m) => m.split(':')[0]).sort()).toEqual(['body.companyName', 'body.email', 'body.password']);
  });

  it('given one field wrong, then the message is that field alone (as before)', async () => {
    const res = await register({ email: 'a@example.com', password: 'correct horse', companyName: '' });
    expect((res.json() as { error: { message: string } }).error.message).toMatch(/^body\.companyName: [^;]+$/);
  });
});
