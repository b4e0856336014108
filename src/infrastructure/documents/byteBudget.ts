/**
 * A cap on the bytes one file-reading thread may allocate as byte arrays, enforced at each allocation.
 *
 * pdf.js inflates a compressed stream with the runtime's DecompressionStream, collecting its chunks, or (when that
 * fails) into a Uint8Array it doubles as it goes (DecodeStream.ensureBuffer). Typed arrays live outside the V8
 * heap, so a worker's `resourceLimits` never see them: a 3.5 MiB PDF whose stream inflates to 1 GiB took
 * gigabytes. pdf.js has no option to cap decompression, so the reading thread replaces two of its own globals (the
 * thread's, nobody else's):
 * - `DecompressionStream` by one whose output is counted chunk by chunk as it is produced;
 * - `Uint8Array` by a subclass that counts every array it creates with a length (`new Uint8Array(n)`, copies of
 *   arrays; views of an existing buffer cost nothing and are not counted). `instanceof Uint8Array` still holds for
 *   arrays made elsewhere (Node's Buffers, TextEncoder).
 * Both throw once the running total passes the budget. The count only grows, so it also bounds the work: every
 * further allocation fails, and whatever pdf.js tolerates after the first failure, `exceeded()` stays true.
 */
export class ByteBudgetError extends Error {
  override readonly name = 'ByteBudgetError';
}

export interface ByteBudget {
  /** Bytes counted so far. */
  allocated(): number;
  exceeded(): boolean;
}

/** Installs the budget on this thread; `onExceeded` runs once, at the allocation that passes it. Call once per thread. */
export function limitByteArrays(maxBytes: number, onExceeded: () => void): ByteBudget {
  const Native = Uint8Array;
  let total = 0;
  let over = false;
  const charge = (bytes: number) => {
    total += bytes;
    if (total <= maxBytes) return;
    if (!over) {
      over = true;
      onExceeded();
    }
    throw new ByteBudgetError(`more than ${maxBytes} bytes`);
  };
  class Counted extends Native {
    constructor(...args: unknown[]) {
      const first = args[0];
      if (typeof first === 'number') charge(first);
      else if (first !== null && typeof first === 'object' && !(first instanceof ArrayBuffer) && !(first instanceof SharedArrayBuffer)) {
        const length = (first as { length?: unknown }).length;
        if (typeof length === 'number') charge(length);
      }
      super(...(args as [ArrayBuffer, number, number]));
    }

    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof Native;
    }
  }
  globalThis.Uint8Array = Counted as unknown as Uint8ArrayConstructor;

  const NativeDecompression = globalThis.DecompressionStream;
  class CountedDecompression {
    readonly writable: DecompressionStream['writable'];
    readonly readable: DecompressionStream['readable'];
    constructor(format: ConstructorParameters<typeof DecompressionStream>[0]) {
      const inner = new NativeDecompression(format);
      this.writable = inner.writable;
      const counting = new TransformStream({
        transform(chunk: Uint8Array, controller) {
          charge(chunk.byteLength);
          controller.enqueue(chunk);
        },
      });
      this.readable = inner.readable.pipeThrough(counting) as DecompressionStream['readable'];
    }
  }
  globalThis.DecompressionStream = CountedDecompression as unknown as typeof DecompressionStream;
  return { allocated: () => total, exceeded: () => over };
}
