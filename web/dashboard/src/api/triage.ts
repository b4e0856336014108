// Triage of a conversation (priority, snooze) and the SLA policy and report.
import { request, type RequestOptions } from './client.js';
import { allOf, type PriorityChanged, type PriorityInput, type SlaPolicy, type SlaPolicyInput, type SlaReport, type Snoozed } from './serverTypes.js';

export type Priority = PriorityInput['priority'];
export type { SlaPolicy, SlaReport };
/** Most urgent first, as the select shows them. */
export const PRIORITIES = allOf<Priority>()(['urgent', 'high', 'normal', 'low']);

const url = (id: string, what: string) => `/api/conversations/${encodeURIComponent(id)}/${what}`;

export const setPriority = async (id: string, priority: Priority) => (await request<PriorityChanged>('PUT', url(id, 'priority'), { priority } satisfies PriorityInput)).conversation;
export const snoozeConversation = async (id: string, until: Date) => (await request<Snoozed>('POST', url(id, 'snooze'), { until: until.toISOString() })).conversation;
export const unsnoozeConversation = async (id: string) => (await request<Snoozed>('POST', url(id, 'unsnooze'))).conversation;

export const getSlaPolicy = (o?: RequestOptions) => request<SlaPolicy>('GET', '/api/settings/sla', undefined, o);
export const setSlaPolicy = (policy: SlaPolicyInput) => request<SlaPolicy>('PUT', '/api/settings/sla', policy);
export const getSlaReport = (range: { from?: string; to?: string }, o?: RequestOptions) =>
  request<SlaReport>('GET', `/api/analytics/sla${range.from || range.to ? `?${new URLSearchParams(Object.entries(range).filter(([, v]) => v) as [string, string][]).toString()}` : ''}`, undefined, o);
