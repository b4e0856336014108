import type { ReactNode } from 'react';
import { Button } from './ui.js';

/** A column heading; `className` aligns it like its cells (e.g. `num`). */
export type Column = string | { label: string; className?: string };

/**
 * The dashboard's table: a scrolling wrap, one heading per column and, with `actions`, a last column of row
 * buttons whose heading only screen readers hear. `cards` stacks each row as a card on narrow screens (its cells
 * then need `data-label`). `children` are the rows; `footer` goes under the table, inside the wrap.
 */
export function DataTable({
  columns,
  actions,
  cards = false,
  caption,
  testId,
  footer,
  children,
}: {
  columns: readonly Column[];
  /** The hidden heading of a last column of buttons: `true` for "Actions". */
  actions?: true | string;
  cards?: boolean;
  /** A heading for screen readers only. */
  caption?: string;
  testId?: string;
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={cards ? 'table table-cards' : 'table'} data-testid={testId}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, className } = typeof column === 'string' ? { label: column, className: undefined } : column;
              return (
                <th key={label} scope="col" className={className}>
                  {label}
                </th>
              );
            })}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">{actions === true ? 'Actions' : actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {footer}
    </div>
  );
}

/** A row's destructive button (Delete, Remove, Revoke): quiet until hovered, red text. */
export function RowDangerButton({ onClick, label, children }: { onClick: () => void; label?: string; children: ReactNode }) {
  return (
    <Button size="sm" variant="ghost" className="danger-text" onClick={onClick} aria-label={label}>
      {children}
    </Button>
  );
}
