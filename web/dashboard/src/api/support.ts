// Customer profiles, canned replies and knowledge-base file uploads (the "work as a support team" API).
import { API_BASE, ApiError, getFreshToken, query, request, type RequestOptions } from './client.js';
import type { CannedReplyChanges, CannedReplyInput, CannedReplyPage, CustomerConversationPage, CustomerNote, CustomerOne, CustomerTags, Reply, ServerLimits, cannedReplies, customers, knowledgeFiles, retention } from './serverTypes.js';
import type { KbDocument, Page } from './types.js';

export type Customer = CustomerOne['customer'];
export type CustomerConversation = CustomerConversationPage['conversations'][number];
export type CannedReply = CannedReplyPage['cannedReplies'][number];

/** Limits the server enforces (shown in the forms so nobody types past them). */
export const CUSTOMER_NOTE_MAX = 4000 satisfies ServerLimits['customerNote'];
export const CUSTOMER_TAGS_MAX = 20 satisfies ServerLimits['customerTags'];
export const CANNED_TEXT_MAX = 4000 satisfies ServerLimits['cannedText'];

// --- customers ----------------------------------------------------------------------------
export const getCustomer = async (id: string, o?: RequestOptions) =>
  (await request<Reply<typeof customers.getCustomerSchema>>('GET', `/api/customers/${encodeURIComponent(id)}`, undefined, o)).customer;
export const setCustomerNote = async (id: string, note: string) =>
  (await request<Reply<typeof customers.setNoteSchema>>('PUT', `/api/customers/${encodeURIComponent(id)}/note`, { note } satisfies CustomerNote)).customer;
export const setCustomerTags = async (id: string, tags: string[]) =>
  (await request<Reply<typeof customers.setTagsSchema>>('PUT', `/api/customers/${encodeURIComponent(id)}/tags`, { tags } satisfies CustomerTags)).customer;
/** Erases the customer's personal data for good (owners and admins); `reason` is a reference such as a ticket number. */
export const eraseCustomer = async (id: string, reason: string) =>
  (await request<Reply<typeof customers.eraseCustomerSchema, 202>>('DELETE', `/api/customers/${encodeURIComponent(id)}`, { reason })).erasure;
/** Everything held about the customer, as one JSON document (GDPR access request; owners and admins; audited). */
export const exportCustomer = async (id: string) =>
  (await request<Reply<typeof customers.exportCustomerSchema>>('GET', `/api/customers/${encodeURIComponent(id)}/export`)).export;
export async function listCustomerConversations(id: string, cursor: string | null, o?: RequestOptions): Promise<Page<CustomerConversation>> {
  const result = await request<CustomerConversationPage>(
    'GET',
    `/api/customers/${encodeURIComponent(id)}/conversations${query({ limit: 10, cursor })}`,
    undefined,
    o,
  );
  return { items: result.conversations, nextCursor: result.nextCursor };
}

// --- retention ----------------------------------------------------------------------------
/** How long closed conversations are kept before they and their customer are erased (null: forever; owners and admins). */
export const getRetention = async () => (await request<Reply<typeof retention.getRetentionSchema>>('GET', '/api/settings/retention')).retention;
export const setRetention = async (conversationDays: number | null) =>
  (await request<Reply<typeof retention.setRetentionSchema>>('PUT', '/api/settings/retention', { conversationDays })).retention;

// --- canned replies -----------------------------------------------------------------------
/** Every canned reply of the company (the server caps them at 200: one or two pages). */
export async function listAllCannedReplies(o?: RequestOptions): Promise<CannedReply[]> {
  const all: CannedReply[] = [];
  let cursor: string | null = null;
  do {
    const page: CannedReplyPage = await request('GET', `/api/canned-replies${query({ limit: 200, cursor })}`, undefined, o);
    all.push(...page.cannedReplies);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
export const createCannedReply = async (input: CannedReplyInput) =>
  (await request<Reply<typeof cannedReplies.createCannedReplySchema, 201>>('POST', '/api/canned-replies', input)).cannedReply;
export const updateCannedReply = async (id: string, input: CannedReplyChanges) =>
  (await request<Reply<typeof cannedReplies.updateCannedReplySchema>>('PATCH', `/api/canned-replies/${encodeURIComponent(id)}`, input)).cannedReply;
export const deleteCannedReply = (id: string) => request<void>('DELETE', `/api/canned-replies/${encodeURIComponent(id)}`);

// --- knowledge-base files -----------------------------------------------------------------
/** Uploads a .txt/.md/.html/.pdf file as its raw bytes (the API takes no multipart); `title`: the document's, else the file's own. */
export async function uploadKnowledgeFile(file: File, title?: string): Promise<KbDocument> {
  const token = await getFreshToken();
  let response: Response;
  try {
    response = await fetch(`${API_BASE}/api/knowledge-base/files${query({ filename: file.name, title: title?.trim() || undefined })}`, {
      method: 'POST',
      headers: { Accept: 'application/json', Authorization: `Bearer ${token}`, 'Content-Type': file.type || 'application/octet-stream' },
      body: file,
    });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server');
  }
  const body = (await response.json().catch(() => null)) as Partial<Reply<typeof knowledgeFiles.uploadFileSchema, 201> & Reply<typeof knowledgeFiles.uploadFileSchema, 415>> | null;
  if (!response.ok || !body?.document) {
    throw new ApiError(response.status, body?.error?.code ?? 'INTERNAL_ERROR', body?.error?.message ?? `Upload failed (HTTP ${response.status})`);
  }
  return body.document;
}
