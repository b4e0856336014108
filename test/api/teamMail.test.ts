import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../support/smtpSink.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/** With SMTP_URL and SMTP_FROM set, the invitation link is also emailed (nodemailer against a local SMTP sink). */
let sink: SmtpSink;
let server: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer(
    { SMTP_URL: sink.url, SMTP_FROM: 'Support <noreply@example.com>', DASHBOARD_URL: 'https://app.example.com', LOG_LEVEL: 'debug' },
    { write: (line: string) => void logLines.push(line) },
  );
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('invitation email', () => {
  it('sends the link shown in the response to the invited address', async () => {
    const email = uniqueEmail('owner');
    expect((await server.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email, password: 'correct horse', companyName: 'Mail Co' } })).statusCode).toBe(201);
    const login = (await server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'correct horse' } })).json();
    const invitee = uniqueEmail('invitee');
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/team/invitations',
      payload: { email: invitee, role: 'agent' },
      headers: { authorization: `Bearer ${login.session.access_token}` },
    });
    expect(res.statusCode).toBe(201);
    const { invitationUrl, emailed } = res.json();
    expect(emailed).toBe(true);
    expect(invitationUrl).toMatch(/^https:\/\/app\.example\.com\/#\/accept-invitation\//);
    expect(sink.messages).toHaveLength(1);
    const mail = sink.messages[0]!.replace(/=\n/g, '').replace(/=3D/g, '=');
    expect(mail).toMatch(new RegExp(`^To: ${invitee}$`, 'm'));
    expect(mail).toMatch(/^From: Support <noreply@example.com>$/m);
    expect(mail).toContain(invitationUrl);

    // Accepting it: neither the token nor the password reaches a log line.
    const token = invitationUrl.split('#/accept-invitation/')[1];
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Ina', password: 'secret invitee pw' } });
    expect(accepted.statusCode).toBe(200);
    expect(logLines.length).toBeGreaterThan(0);
    const logs = logLines.join('');
    expect(logs).not.toContain(token.split('.')[1]);
    expect(logs).not.toContain('secret invitee pw');
  });
});
