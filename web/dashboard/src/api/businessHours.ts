// The business-hours calls (GET/PUT /api/settings/business-hours).
import { request, type RequestOptions } from './client.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export interface Opening {
  from: string;
  to: string;
}
export interface BusinessHoursInput {
  enabled: boolean;
  weekly: Record<Weekday, Opening[]>;
  holidays: { date: string; name?: string }[];
}
export interface BusinessHours extends BusinessHoursInput {
  timezone: string;
  openNow: boolean;
  nextOpening: string | null;
}

export const getBusinessHours = (o?: RequestOptions) => request<BusinessHours>('GET', '/api/settings/business-hours', undefined, o);
export const setBusinessHours = (hours: BusinessHoursInput) => request<BusinessHours>('PUT', '/api/settings/business-hours', hours);
