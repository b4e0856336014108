import { describe, it } from 'vitest';
import { csatProjection, type CsatDayDoc } from '../../../../src/projections/csat/csatProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const agent = 'a9e7c6b5-1111-4222-8333-444455556666';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const conv = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const stream = `conversation-${conv}`;
const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const survey = '66666666-6666-4666-8666-666666666666';
const question = '77777777-7777-4777-8777-777777777777';

const started = recorded(stream, 'ConversationStarted', {
  conversationId: conv, companyId: company, integrationId: 12, connectorType: 'msgplatform', customer: { clientId: 'c1', channelId: null, transport: 'telegram' }, stageId: null, at: '2026-03-10T22:30:00.000Z',
});
const requested = recorded(stream, 'CsatRequested', { surveyId: survey, sessionId: session, via: 'platform', messageId: question, text: 'Rate us', agentId: agent, teammateId: ann, at: '2026-03-10T22:40:00.000Z' });
const submitted = recorded(stream, 'CsatSubmitted', { surveyId: survey, rating: 4, comment: 'thanks', via: 'platform', agentId: agent, teammateId: ann, at: '2026-03-10T23:30:00.000Z' });
const tokyo = recorded(`company-${company}`, 'CompanyTimezoneSet', { timezone: 'Asia/Tokyo', previousTimezone: 'UTC', by: null, at: '2026-03-01T00:00:00.000Z' });

const day = (subject: string, date: string, fill: Partial<CsatDayDoc>): CsatDayDoc => ({
  id: `${company}|${subject}|${date}`, companyId: company, subject, month: date.slice(0, 7), date, requested: 0, responses: 0, total: 0, scores: [0, 0, 0, 0, 0], ...fill,
});
const everySubject = (date: string, fill: Partial<CsatDayDoc>) => ['company', 'integration:12', `agent:${agent}`, `teammate:${ann}`].map((s) => day(s, date, fill));

const spec = projectionSpec(csatProjection);

describe('csat projection: given events, then the documents', () => {
  it('a survey sent and answered counts for the company, integration, agent and teammate, on the local day; the answer is listed', async () => {
    await spec.given([started, requested, submitted]).then({
      csat_days: everySubject('2026-03-10', { requested: 1, responses: 1, total: 4, scores: [0, 0, 0, 1, 0] }),
      csat_responses: [
        { id: survey, companyId: company, conversationId: conv, integrationId: 12, rating: 4, comment: 'thanks', via: 'platform', agentId: agent, agentVersion: null, teammateId: ann, at: '2026-03-10T23:30:00.000Z' },
      ],
    });
  });

  it('a survey of an answer written by a known agent version also counts for that version', async () => {
    const v = (e: typeof requested): typeof requested => ({ ...e, data: { ...(e.data as object), agentVersion: 2 } });
    await spec.given([started, v(requested), v(submitted)]).then({
      csat_days: [...everySubject('2026-03-10', { requested: 1, responses: 1, total: 4, scores: [0, 0, 0, 1, 0] }), day(`agentVersion:${agent}:2`, '2026-03-10', { requested: 1, responses: 1, total: 4, scores: [0, 0, 0, 1, 0] })],
      csat_responses: [
        { id: survey, companyId: company, conversationId: conv, integrationId: 12, rating: 4, comment: 'thanks', via: 'platform', agentId: agent, agentVersion: 2, teammateId: ann, at: '2026-03-10T23:30:00.000Z' },
      ],
    });
  });

  it('in Tokyo the same instants fall on the next local day', async () => {
    await spec.given([tokyo, started, requested, submitted]).then({
      csat_days: everySubject('2026-03-11', { requested: 1, responses: 1, total: 4, scores: [0, 0, 0, 1, 0] }),
    });
  });

  it('a survey without an answer counts as sent only; events outside customer conversations count nothing', async () => {
    const playground = recorded('playground-x', 'CsatRequested', { surveyId: survey, sessionId: session, via: 'webchat', agentId: null, teammateId: null, at: '2026-03-10T22:40:00.000Z' });
    await spec.given([started, requested, playground]).then({
      csat_days: everySubject('2026-03-10', { requested: 1 }),
      csat_responses: [],
    });
  });
});
