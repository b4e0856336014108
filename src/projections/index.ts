import { apiTokensProjection } from './apiTokens/apiTokensProjection.js';
import { companiesProjection } from './companies/companiesProjection.js';
import { creditsProjection } from './credits/creditsProjection.js';
import { pipelinesProjection } from './pipelines/pipelinesProjection.js';
import type { Projection } from './projection.js';

/** Every read model the dashboard and API query. */
export const allProjections: Projection[] = [companiesProjection, pipelinesProjection, creditsProjection, apiTokensProjection];
