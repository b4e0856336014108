import { useId, useRef, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { uploadKnowledgeFile } from '../api/support.js';
import type { KbDocument } from '../api/types.js';
import { CardSection } from './CardSection.js';
import { useToast } from './Toasts.js';
import { Button, InlineError } from './ui.js';
import './support.css';

const ACCEPT = '.txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf';

/**
 * Uploads a .txt, .md, .html or .pdf file as a knowledge-base document (its text): titled as the user says, else
 * by the file's own title (a page's heading, a PDF's title), else after the file.
 */
export function KnowledgeFileUpload({ onAdded }: { onAdded: (doc: KbDocument) => void }) {
  const toast = useToast();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setUploading(true);
    setError(null);
    try {
      const doc = await uploadKnowledgeFile(file, title);
      onAdded(doc);
      toast.success(`“${doc.title}” added from ${file.name} (${doc.chunkCount} chunk${doc.chunkCount === 1 ? '' : 's'})`);
      setFile(null);
      setTitle('');
      if (input.current) input.current.value = '';
    } catch (err) {
      setError(describeError(err));
    } finally {
      setUploading(false);
    }
  }

  return (
    <CardSection title="Upload a file">
      <form className="kb-upload" onSubmit={onSubmit}>
        <label htmlFor={id} className="field-label">
          File
        </label>
        <input
          ref={input}
          id={id}
          type="file"
          accept={ACCEPT}
          className="input"
          data-testid="kb-file-input"
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setError(null);
            setFile(e.target.files?.[0] ?? null);
          }}
        />
        <span id={`${id}-hint`} className="field-hint">
          .txt, .md, .html or .pdf (PDFs up to 10 MiB, other files up to 2 MiB; at most 1 MiB of text). Scanned PDFs without a text layer cannot be read.
        </span>
        <label htmlFor={`${id}-title`} className="field-label">
          Title (optional)
        </label>
        <input
          id={`${id}-title`}
          type="text"
          className="input"
          maxLength={200}
          value={title}
          data-testid="kb-file-title"
          aria-describedby={`${id}-title-hint`}
          onChange={(e) => setTitle(e.target.value)}
        />
        <span id={`${id}-title-hint`} className="field-hint">
          Left empty, the document takes the file&apos;s own title (a web page&apos;s heading, a PDF&apos;s title), else its name.
        </span>
        <InlineError error={error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={uploading} disabled={!file} data-testid="kb-file-upload">
            Upload
          </Button>
        </div>
      </form>
    </CardSection>
  );
}
