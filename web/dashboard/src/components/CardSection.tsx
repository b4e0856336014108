import { useId, type ReactNode } from 'react';

/** A card with a section heading that names it for screen readers (a region labelled by its `<h2>`). */
export function CardSection({ title, children }: { title: ReactNode; children: ReactNode }) {
  const titleId = useId();
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 className="section-title" id={titleId}>
        {title}
      </h2>
      {children}
    </section>
  );
}
