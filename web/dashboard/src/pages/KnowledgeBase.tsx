import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { KB_DOCUMENT_MAX_BYTES, createDocument, deleteDocument, getDocument, listDocuments, searchKnowledgeBase, updateDocument } from '../api/endpoints.js';
import type { KbDocument, KbDocumentWithContent, KbSearchResult } from '../api/types.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { DataTable, RowDangerButton } from '../components/DataTable.js';
import { Button, ConfirmDialog, EmptyState, ErrorState, InlineError, ListState, Modal, PageHeader, Skeleton, TextAreaField, TextField, Time } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';
import { KnowledgeFileUpload } from '../components/KnowledgeFileUpload.js';
import { navigate, useRoute } from '../lib/router.js';

function describeDocumentError(error: unknown): string {
  if (error instanceof ApiError && (error.status === 413 || error.code === 'PAYLOAD_TOO_LARGE')) return 'Document too large (max 1 MiB)';
  if (error instanceof ApiError && error.code === 'CONFLICT') return 'Someone else changed this document meanwhile. Reload it to see their version, then edit again.';
  return describeError(error);
}

export function KnowledgeBasePage() {
  const toast = useToast();
  const documents = useAsync((signal) => listDocuments({ signal }), []);
  const [toEdit, setToEdit] = useState<KbDocument | null>(null);
  const deletion = useConfirmedDelete(async (doc: KbDocument) => {
    await deleteDocument(doc.id);
    documents.setData((list) => list?.filter((d) => d.id !== doc.id));
    toast.success(`“${doc.title}” deleted`);
  });
  // `#/knowledge-base?document=<id>` (an answer's source links here) opens that document.
  const requested = useRoute().query.get('document');
  useEffect(() => {
    if (!requested) return;
    const known = documents.data?.find((d) => d.id === requested);
    setToEdit((current) => (current?.id === requested ? current : (known ?? ({ id: requested, title: 'Document' } as KbDocument))));
  }, [requested, documents.data]);
  const closeDocument = () => {
    setToEdit(null);
    if (requested) navigate('/knowledge-base', { replace: true });
  };

  return (
    <>
      <PageHeader title="Knowledge base" description="Documents your agents use to answer. Each document is split into searchable chunks." />
      <div className="two-col">
        <CardSection title="Documents">
          <ListState list={documents} items={documents.data} loadingLabel="Loading documents…" skeletonRows={4} errorTitle="Could not load the documents" empty={<EmptyState title="No documents yet — add your FAQ, prices or policies so agents can answer from them" />}>
            <DataTable columns={['Title', { label: 'Chunks', className: 'num' }, 'Updated']} actions>
              {documents.data?.map((doc) => (
                <tr key={doc.id} data-testid="kb-document-row">
                  <td className="wrap">{doc.title}</td>
                  <td className="num">{doc.chunkCount}</td>
                  {/* Not nowrap: in the narrow half-page table the time goes under the date (Time). */}
                  <td>
                    <Time iso={doc.updatedAt ?? doc.createdAt} />
                  </td>
                  <td className="actions">
                    <Button size="sm" variant="ghost" onClick={() => setToEdit(doc)} aria-label={`View or edit ${doc.title}`}>
                      View / edit
                    </Button>
                    <RowDangerButton onClick={() => deletion.ask(doc)} label={`Delete ${doc.title}`}>
                      Delete
                    </RowDangerButton>
                  </td>
                </tr>
              ))}
            </DataTable>
          </ListState>
        </CardSection>
        <div className="stack">
          <AddDocument onAdded={(doc) => documents.setData((list) => [doc, ...(list ?? []).filter((d) => d.id !== doc.id)])} />
          <KnowledgeFileUpload onAdded={(doc) => documents.setData((list) => [doc, ...(list ?? []).filter((d) => d.id !== doc.id)])} />
          <SearchBox />
        </div>
      </div>
      <EditDocumentDialog
        document={toEdit}
        onClose={closeDocument}
        onSaved={(saved) => documents.setData((list) => list?.map((d) => (d.id === saved.id ? saved : d)))}
      />
      <ConfirmDialog {...deletion.dialog} title="Delete this document?" message={<p>Agents will no longer use “{deletion.target?.title}”.</p>} confirmLabel="Delete" />
    </>
  );
}

/**
 * Shows a document's whole text and edits it. The edit names the revision it was loaded at: if someone else
 * saved meanwhile the server answers 409 CONFLICT, and the dialog offers to reload their version.
 */
function EditDocumentDialog({ document, onClose, onSaved }: { document: KbDocument | null; onClose: () => void; onSaved: (doc: KbDocument) => void }) {
  const toast = useToast();
  const formId = useId();
  const [loaded, setLoaded] = useState<KbDocumentWithContent | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const save = useSubmit();
  const [reloads, setReloads] = useState(0);
  const bytes = new TextEncoder().encode(content).length;
  const tooLarge = bytes > KB_DOCUMENT_MAX_BYTES;

  useEffect(() => {
    setLoaded(null);
    setLoadError(null);
    save.setError(null);
    if (!document) return;
    const controller = new AbortController();
    getDocument(document.id, { signal: controller.signal })
      .then((doc) => {
        setLoaded(doc);
        setTitle(doc.title);
        setContent(doc.content);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setLoadError(err);
      });
    return () => controller.abort();
  }, [document, reloads]);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!loaded || tooLarge) return;
    void save.run(async () => {
      const saved = await updateDocument(loaded.id, { title: title.trim(), content, expectedRevision: loaded.revision });
      onSaved(saved);
      toast.success(`“${saved.title}” saved (${saved.chunkCount} chunk${saved.chunkCount === 1 ? '' : 's'})`);
      onClose();
    });
  }

  const conflict = save.error instanceof ApiError && save.error.code === 'CONFLICT';
  const unchanged = loaded !== null && title.trim() === loaded.title && content === loaded.content;
  return (
    <Modal
      open={document !== null}
      onClose={onClose}
      title={loaded ? `Document: ${loaded.title}` : (document?.title ?? 'Document')}
      footer={
        <>
          <Button onClick={onClose} disabled={save.busy}>
            Close
          </Button>
          {conflict && <Button onClick={() => setReloads((n) => n + 1)}>Reload their version</Button>}
          <Button type="submit" form={formId} variant="primary" busy={save.busy} disabled={!loaded || unchanged || !title.trim() || !content.trim() || tooLarge}>
            Save changes
          </Button>
        </>
      }
    >
      {loadError ? (
        <ErrorState error={loadError} onRetry={() => setReloads((n) => n + 1)} title="Could not load the document" />
      ) : !loaded ? (
        <Skeleton rows={6} label="Loading the document…" />
      ) : (
        <form id={formId} className="form" onSubmit={onSubmit} data-testid="kb-edit-form">
          <p className="muted">
            Revision {loaded.revision} · {loaded.chunkCount} chunk{loaded.chunkCount === 1 ? '' : 's'} · updated <Time iso={loaded.updatedAt} />
          </p>
          <TextField label="Title" required value={title} onValueChange={setTitle} />
          <TextAreaField
            label="Content"
            required
            rows={16}
            value={content}
            onValueChange={setContent}
            hint={`${(bytes / 1024).toFixed(bytes < 10240 ? 1 : 0)} KiB of 1024 KiB`}
            error={tooLarge ? 'Document too large (max 1 MiB)' : null}
          />
          <InlineError error={save.error ? describeDocumentError(save.error) : null} />
        </form>
      )}
    </Modal>
  );
}

function AddDocument({ onAdded }: { onAdded: (doc: KbDocument) => void }) {
  const toast = useToast();
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const add = useSubmit();
  const bytes = new TextEncoder().encode(content).length;
  const tooLarge = bytes > KB_DOCUMENT_MAX_BYTES;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (tooLarge) {
      add.setError(new Error('Document too large (max 1 MiB)'));
      return;
    }
    void add.run(async () => {
      const doc = await createDocument(title.trim(), content);
      onAdded(doc);
      setTitle('');
      setContent('');
      toast.success(`“${doc.title}” added (${doc.chunkCount} chunk${doc.chunkCount === 1 ? '' : 's'})`);
    });
  }

  return (
    <CardSection title="Add a document">
      <form className="form" onSubmit={onSubmit}>
        <TextField label="Title" required value={title} onValueChange={setTitle} placeholder="e.g. Delivery and returns" />
        <TextAreaField
          label="Content"
          required
          rows={8}
          value={content}
          onValueChange={setContent}
          placeholder="Paste plain text or Markdown…"
          hint={`${(bytes / 1024).toFixed(bytes < 10240 ? 1 : 0)} KiB of 1024 KiB`}
          error={tooLarge ? 'Document too large (max 1 MiB)' : null}
        />
        <InlineError error={add.error ? describeDocumentError(add.error) : null} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={add.busy} disabled={!title.trim() || !content.trim()}>
            Add document
          </Button>
        </div>
      </form>
    </CardSection>
  );
}

function SearchBox() {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<KbSearchResult[] | null>(null);
  const [searched, setSearched] = useState('');
  const search = useSubmit();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const query = q.trim();
    if (!query) return;
    void search.run(async () => {
      setResults(await searchKnowledgeBase(query));
      setSearched(query);
    });
  }

  return (
    <CardSection title="Try a search">
      <form className="search-row" onSubmit={onSubmit} role="search">
        <TextField label="Search the knowledge base" type="search" value={q} onValueChange={setQ} placeholder="What would a customer ask?" />
        <Button type="submit" busy={search.busy} disabled={!q.trim()}>
          Search
        </Button>
      </form>
      <InlineError error={search.error} />
      <div aria-live="polite">
        {results &&
          (results.length === 0 ? (
            <p className="muted">No passages match “{searched}”. The builtin provider would answer with the agent’s handoff message.</p>
          ) : (
            <ol className="search-results" aria-label={`Results for ${searched}`}>
              {results.map((result, index) => (
                <li key={`${result.documentId}-${index}`} className="search-result" data-testid="kb-search-result">
                  <div className="search-result-head">
                    <strong>{result.title}</strong>
                    <span className="score" title="Relevance score">
                      score {Number.isFinite(result.score) ? result.score.toFixed(2) : String(result.score)}
                    </span>
                  </div>
                  <p className="snippet">{result.snippet}</p>
                </li>
              ))}
            </ol>
          ))}
      </div>
    </CardSection>
  );
}
