import { useId, type ReactNode } from 'react';
import { Button, CopyButton, Modal } from './ui.js';

/**
 * A secret the server returns only once (an API token, an invitation link): shown with a warning and a Copy
 * button until the user clicks Done. `children` add details under the value.
 */
export function ShownOnceDialog({
  value,
  onClose,
  title,
  warning,
  what,
  valueTestId,
  children,
}: {
  /** The secret; the dialog is open while it is set. */
  value: string | null;
  onClose: () => void;
  title: string;
  warning: ReactNode;
  /** What the Copy button's toast names ("API token"). */
  what: string;
  valueTestId: string;
  children?: ReactNode;
}) {
  const valueId = useId();
  return (
    <Modal
      open={value !== null}
      onClose={onClose}
      title={title}
      describedBy={`${valueId}-warning`}
      footer={
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      <p className="notice notice-warning" id={`${valueId}-warning`}>
        {warning}
      </p>
      <div className="copy-row">
        <code className="code-box token-value" id={valueId} data-testid={valueTestId}>
          {value}
        </code>
        {value !== null && <CopyButton text={value} describedBy={valueId} what={what} size="md" />}
      </div>
      {children}
    </Modal>
  );
}
