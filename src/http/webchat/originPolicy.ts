/** A request Origin matches an allowed origin exactly (scheme, host and port); `null` and a missing Origin never do. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!origin || origin === 'null') return false;
  const normalize = (value: string) => {
    try {
      const u = new URL(value);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
    } catch {
      return null;
    }
  };
  const wanted = normalize(origin);
  return wanted !== null && allowed.some((a) => normalize(a) === wanted);
}
