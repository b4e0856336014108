import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

let server: TestServer;
let acme: Company;
let globex: Company;
beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => server?.close());

const trade = (who: Company) => who.call('GET', '/api/knowledge-base/answer-trade');

describe('GET /api/knowledge-base/answer-trade', () => {
  it('before any document: not calibrated, each setting with its false-answer target and no measured figures', async () => {
    const res = await trade(globex);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      calibrated: false,
      probes: null,
      settings: {
        strict: { falseAnswerTarget: 0.02, coveredAnsweredRight: null, uncoveredAnswered: null },
        balanced: { falseAnswerTarget: 0.05, coveredAnsweredRight: null, uncoveredAnswered: null },
        lenient: { falseAnswerTarget: 0.1, coveredAnsweredRight: null, uncoveredAnswered: null },
      },
    });
  });

  it('a moment after documents are added: the trade measured on the company’s own knowledge base, and only its own', async () => {
    for (const [title, content] of [
      ['Returns policy', 'You can return any parcel within 30 days of delivery. Print the return label from your account.'],
      ['Shipping', 'We ship to Norway, Sweden and Denmark within 5 working days. Shipping is free over 50 euros.'],
      ['Payment methods', 'We accept Visa, Mastercard and PayPal. Your card is charged when the order ships.'],
    ]) expect((await acme.call('POST', '/api/knowledge-base/documents', { title, content })).statusCode).toBe(201);
    const body = await eventually(async () => {
      const json = (await trade(acme)).json();
      expect(json.calibrated).toBe(true);
      return json;
    }, 20_000, 200);
    expect(body.probes.answerable).toBeGreaterThanOrEqual(3);
    expect(body.probes.unanswerable).toBe(body.probes.answerable);
    for (const setting of ['strict', 'balanced', 'lenient']) {
      expect(body.settings[setting].coveredAnsweredRight).toBeGreaterThanOrEqual(0);
      expect(body.settings[setting].coveredAnsweredRight).toBeLessThanOrEqual(1);
      expect(body.settings[setting].uncoveredAnswered).toBeGreaterThanOrEqual(0);
    }
    // Stricter never answers more.
    expect(body.settings.strict.coveredAnsweredRight).toBeLessThanOrEqual(body.settings.lenient.coveredAnsweredRight);
    // Another company's knowledge base is not this one's.
    expect((await trade(globex)).json().calibrated).toBe(false);
  });

  it('/docs/json documents it, with its settings', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    const get = doc.paths['/api/knowledge-base/answer-trade'].get;
    expect(get.responses['200']).toBeDefined();
    expect(JSON.stringify(get.responses['200'])).toContain('uncoveredAnswered');
  });

  it('401 without a token', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/knowledge-base/answer-trade' })).statusCode).toBe(401);
  });
});
