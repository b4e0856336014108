import {
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type HTMLAttributes,
  type ReactNode,
  type InputHTMLAttributes,
  type TextareaHTMLAttributes,
  type SelectHTMLAttributes,
} from 'react';
import { describeError } from '../api/client.js';
import { formatDateTime, formatDateTimeLong, formatDateTimeParts } from '../lib/format.js';
import { Icon } from './icons.js';
import { useToast, useToastHost } from './Toasts.js';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: 'sm' | 'md';
  busy?: boolean;
}

export function Button({ variant = 'secondary', size = 'md', busy = false, className, children, disabled, type, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type ?? 'button'}
      className={['btn', `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', className ?? ''].filter(Boolean).join(' ')}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span className="spinner spinner-inline" aria-hidden="true" />}
      {children}
    </button>
  );
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <span className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </span>
  );
}

export function Skeleton({ rows = 3, label = 'Loading…' }: { rows?: number; label?: string }) {
  return (
    <div className="skeleton-list" role="status" aria-busy="true">
      <span className="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" aria-hidden="true" style={{ width: `${92 - ((i * 17) % 35)}%` }} />
      ))}
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
      {action && <div className="empty-action">{action}</div>}
    </div>
  );
}

/**
 * A list's states, the same on every page: a skeleton until the first load, the error with a retry when that
 * failed, `empty` when it loaded nothing, else the list itself (`children`). A reload keeps showing the list.
 */
export function ListState({
  list,
  items,
  loadingLabel,
  skeletonRows = 3,
  errorTitle,
  empty,
  children,
}: {
  list: { loading: boolean; error: unknown; reload: () => void };
  items: readonly unknown[] | null | undefined;
  loadingLabel: string;
  skeletonRows?: number;
  errorTitle: string;
  empty: ReactNode;
  children: ReactNode;
}) {
  if (list.loading && !items) return <Skeleton rows={skeletonRows} label={loadingLabel} />;
  if (list.error && !items) return <ErrorState error={list.error} onRetry={list.reload} title={errorTitle} />;
  if (items && items.length === 0) return <>{empty}</>;
  return <>{children}</>;
}

export function ErrorState({ error, onRetry, title = 'Could not load this' }: { error: unknown; onRetry?: () => void; title?: string }) {
  return (
    <div className="error-state" role="alert">
      <p className="error-title">{title}</p>
      <p className="error-body">{describeError(error)}</p>
      {onRetry && (
        <Button onClick={onRetry} variant="secondary">
          Retry
        </Button>
      )}
    </div>
  );
}

export function InlineError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="inline-error" role="alert">
      {typeof error === 'string' ? error : describeError(error)}
    </p>
  );
}

export type Tone = 'neutral' | 'success' | 'warning' | 'danger' | 'info' | 'accent';

export function Badge({ tone = 'neutral', children, className, ...rest }: HTMLAttributes<HTMLSpanElement> & { tone?: Tone }) {
  return (
    <span {...rest} className={`badge badge-${tone}${className ? ` ${className}` : ''}`}>
      {children}
    </span>
  );
}

export function Time({ iso, format = formatDateTime }: { iso: string | null | undefined; format?: (iso: string) => string }) {
  if (!iso) return <span className="muted">—</span>;
  // Where it has to wrap, it wraps between the date and the time, never inside them.
  const parts = format === formatDateTime ? formatDateTimeParts(iso) : null;
  return (
    <time dateTime={iso} title={formatDateTimeLong(iso)}>
      {parts ? (
        <>
          <span className="nowrap">{parts[0]}</span> <span className="nowrap">{parts[1]}</span>
        </>
      ) : (
        format(iso)
      )}
    </time>
  );
}

export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Fallback for plain-http origins.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('Copy is not available here — select the text and copy it by hand');
}

/** A "Copy" button; `describedBy` names what it copies for screen readers. */
export function CopyButton({ text, describedBy, what = 'Text', size = 'sm' }: { text: string; describedBy?: string; what?: string; size?: 'sm' | 'md' }) {
  const toast = useToast();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), 1_500);
    return () => window.clearTimeout(timer);
  }, [copied]);
  return (
    <Button
      size={size}
      variant="secondary"
      aria-describedby={describedBy}
      data-copied={copied || undefined}
      onClick={() => {
        copyText(text).then(
          () => {
            setCopied(true);
            toast.success(`${what} copied to the clipboard`);
          },
          (error: unknown) => toast.error(describeError(error)),
        );
      }}
    >
      <Icon name={copied ? 'check' : 'copy'} size={14} />
      Copy
    </Button>
  );
}

/** A modal built on the native <dialog> (focus trap, Escape, inert background). */
export function Modal({
  open,
  onClose,
  title,
  children,
  footer,
  describedBy,
  size = 'md',
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  footer?: ReactNode;
  describedBy?: string;
  size?: 'sm' | 'md';
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // While open, toasts render inside the dialog: everything outside a modal dialog is inert.
  useToastHost(ref, open);
  return (
    <dialog
      ref={ref}
      className={`modal modal-${size}`}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      {open && (
        <div className="modal-inner">
          <h2 id={titleId} className="modal-title">
            {title}
          </h2>
          <div className="modal-body">{children}</div>
          {footer && <div className="modal-footer">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}

export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
  danger = true,
  cancelLabel = 'Cancel',
}: {
  open: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
}) {
  const bodyId = useId();
  return (
    <Modal
      open={open}
      onClose={onCancel}
      title={title}
      size="sm"
      describedBy={bodyId}
      footer={
        <>
          <Button onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </Button>
          <Button variant={danger ? 'danger' : 'primary'} onClick={onConfirm} busy={busy}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <div id={bodyId}>{message}</div>
    </Modal>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1 className="page-title" tabIndex={-1}>
          {title}
        </h1>
        {description && <p className="page-description">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

interface FieldShellProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Something shown next to the label, e.g. a "set" badge. */
  aside?: ReactNode;
  children: (ids: { id: string; describedBy: string | undefined }) => ReactNode;
  className?: string;
}

export function FieldShell({ label, hint, error, aside, children, className }: FieldShellProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <div className="field-label-row">
        <label htmlFor={id} className="field-label">
          {label}
        </label>
        {aside}
      </div>
      {children({ id, describedBy })}
      {hint && (
        <div id={hintId} className="field-hint">
          {hint}
        </div>
      )}
      {error && (
        <div id={errorId} className="field-error">
          {error}
        </div>
      )}
    </div>
  );
}

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  aside?: ReactNode;
  value: string;
  onValueChange: (value: string) => void;
};

export function TextField({ label, hint, error, aside, value, onValueChange, className, ...rest }: TextFieldProps) {
  return (
    <FieldShell label={label} hint={hint} error={error} aside={aside} className={className}>
      {({ id, describedBy }) => (
        <input
          {...rest}
          id={id}
          className="input"
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
        />
      )}
    </FieldShell>
  );
}

type TextAreaFieldProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'onChange' | 'value'> & {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  value: string;
  onValueChange: (value: string) => void;
};

export function TextAreaField({ label, hint, error, value, onValueChange, className, ...rest }: TextAreaFieldProps) {
  return (
    <FieldShell label={label} hint={hint} error={error} className={className}>
      {({ id, describedBy }) => (
        <textarea
          {...rest}
          id={id}
          className="input textarea"
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
        />
      )}
    </FieldShell>
  );
}

type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & {
  label: ReactNode;
  hint?: ReactNode;
  value: string;
  onValueChange: (value: string) => void;
  children: ReactNode;
};

export function SelectField({ label, hint, value, onValueChange, children, className, ...rest }: SelectFieldProps) {
  return (
    <FieldShell label={label} hint={hint} className={className}>
      {({ id, describedBy }) => (
        <select {...rest} id={id} className="input select" aria-describedby={describedBy} value={value} onChange={(event) => onValueChange(event.target.value)}>
          {children}
        </select>
      )}
    </FieldShell>
  );
}

/** A checkbox presented as a switch (role="switch"), labelled by its visible text. */
export function Switch({
  label,
  checked,
  onChange,
  disabled,
  hint,
}: {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  hint?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="switch-field">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch-input"
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(event) => onChange(event.target.checked)}
      />
      <label htmlFor={id} className="switch-label">
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        <span>{label}</span>
      </label>
      {hint && (
        <span id={`${id}-hint`} className="field-hint switch-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A "set" marker for write-only secrets. */
export function SetBadge({ set }: { set: boolean }) {
  return set ? (
    <Badge tone="success" data-testid="secret-set">
      set
    </Badge>
  ) : (
    <Badge tone="neutral">not set</Badge>
  );
}
