// The business-hours calls (GET/PUT /api/settings/business-hours).
import { request, type RequestOptions } from './client.js';
import { allOf, type BusinessHours, type BusinessHoursInput } from './serverTypes.js';

export type { BusinessHours, BusinessHoursInput };
export type Weekday = keyof BusinessHours['weekly'];
export type Opening = BusinessHours['weekly'][Weekday][number];
/** The week in the order the form shows it. */
export const WEEKDAYS = allOf<Weekday>()(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);

export const getBusinessHours = (o?: RequestOptions) => request<BusinessHours>('GET', '/api/settings/business-hours', undefined, o);
export const setBusinessHours = (hours: BusinessHoursInput) => request<BusinessHours>('PUT', '/api/settings/business-hours', hours);
