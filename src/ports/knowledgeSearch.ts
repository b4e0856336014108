import type { Calibration } from '../domain/answers/calibration.js';
import type { LlmPassage } from './llm.js';

/**
 * The knowledge-base search index (src/infrastructure/search/): an in-memory index per company, rebuilt from the
 * events on every start. Two views of it: what the HTTP routes need, and what an answer retrieves passages with.
 */

/** One search hit as the knowledge index reports it (the fields this API uses). */
export interface KnowledgeHit {
  documentId: string;
  title: string;
  snippet: string;
  score: number;
}

/** What the knowledge-base routes need besides HttpServices: the search index and its progress. */
export interface KnowledgeSearch {
  search(companyId: string, query: string, options?: { limit?: number }): Promise<KnowledgeHit[]>;
  /** Passages the document will be split into (computed off the HTTP thread). */
  chunkCount(document: { title: string; content: string }): Promise<number>;
  /** Resolves once the index holds every knowledge-base event up to `position` (read-your-writes). */
  waitForPosition(position: bigint): Promise<void>;
  /**
   * The company's calibration of the decision to answer (domain/answers/calibration.ts): per setting, the share of
   * its own probe questions answered rightly and of left-out ones answered wrongly. Null: not fitted yet (no
   * documents, or refitted a moment after the last change).
   */
  calibration(companyId: string): Promise<Calibration | null>;
}

/** The knowledge index as answers read it (its results carry more fields; these are the ones an answer keeps). */
export interface PassageSearch {
  search(companyId: string, query: string, options: { limit: number }): LlmPassage[] | Promise<LlmPassage[]>;
}
