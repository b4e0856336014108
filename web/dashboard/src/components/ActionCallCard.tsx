// One action call as a card: what the AI called, when, with what, what came back and who decided. Shown inline
// on a conversation's timeline (its events grouped) and in the action log.
import type { ReactNode } from 'react';
import type { ActionCall } from '../api/actionCalls.js';
import { argumentsLine, DECLINED_LABEL, MODE_LABEL, STATUS_LABEL, STATUS_TONE } from '../lib/actionCalls.js';
import { formatDuration } from '../lib/format.js';
import { Badge, Time } from './ui.js';
import './actionCalls.css';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Result({ call }: { call: ActionCall }) {
  if (call.status !== 'succeeded' && call.status !== 'failed') return null;
  const facts = [call.httpStatus !== null ? `HTTP ${call.httpStatus}` : null, call.durationMs !== null ? formatDuration(call.durationMs) : null, call.mocked ? 'mocked (sample response)' : null].filter(Boolean).join(' · ');
  return (
    <>
      <Row label="Result">
        <span data-testid="action-call-result">{facts || '—'}</span>
      </Row>
      {call.status === 'succeeded' && call.response !== null && (
        <Row label="Response">
          <code className="action-call-response" data-testid="action-call-response">
            {call.response}
            {call.responseTruncated ? ' …' : ''}
          </code>
        </Row>
      )}
      {call.status === 'failed' && (
        <Row label="Error">
          {call.error}
          {call.outcomeUnknown ? ' It may have been made; it is not retried.' : ''}
        </Row>
      )}
    </>
  );
}

function Decision({ call, nameOf }: { call: ActionCall; nameOf: (userId: string) => string }) {
  if (call.decidedBy) {
    return (
      <Row label={call.status === 'refused' ? 'Refused by' : 'Approved by'}>
        <span data-testid="action-call-decided-by">{nameOf(call.decidedBy)}</span> · <Time iso={call.decidedAt} />
        {call.reason ? ` · “${call.reason}”` : ''}
      </Row>
    );
  }
  if (call.status === 'waiting_approval') return <Row label="Approval">Waiting for a teammate{call.expiresAt ? <> until <Time iso={call.expiresAt} /></> : null}</Row>;
  if (call.status === 'expired') return <Row label="Approval">Nobody approved in time: handed to people</Row>;
  return null;
}

export function ActionCallCard({ call, nameOf, children, actions }: { call: ActionCall; nameOf: (userId: string) => string; children?: ReactNode; actions?: ReactNode }) {
  const args = argumentsLine(call.arguments);
  return (
    <article className="action-call" data-testid="action-call-card" data-call-id={call.callId} data-status={call.status} aria-label={`Action ${call.actionName}: ${STATUS_LABEL[call.status]}`}>
      <div className="action-call-head">
        <span className="action-call-name">{call.actionName}</span>
        <Badge tone={STATUS_TONE[call.status]} data-testid="action-call-status">
          {STATUS_LABEL[call.status]}
        </Badge>
        <span className="muted small">{MODE_LABEL[call.mode]}</span>
        <span className="event-time">
          <Time iso={call.requestedAt} />
        </span>
      </div>
      <dl>
        <Row label="Arguments">{args ? <code className="code-inline" data-testid="action-call-arguments">{args}</code> : <span className="muted">none</span>}</Row>
        {call.confirmationPrompt && <Row label="Asked">“{call.confirmationPrompt}”</Row>}
        {call.declinedWhy && <Row label="Not made">{DECLINED_LABEL[call.declinedWhy]}</Row>}
        {call.status === 'rejected' && <Row label="Not made">{call.error}</Row>}
        <Decision call={call} nameOf={nameOf} />
        <Result call={call} />
      </dl>
      {actions}
      {children}
    </article>
  );
}
