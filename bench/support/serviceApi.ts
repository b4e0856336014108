import { randomUUID } from 'node:crypto';

/** A signed-in company on a listening service, through the public HTTP API (as a dashboard would do it). */
export async function signUp(base: string, companyName = 'Bench Inc') {
  const email = `bench-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  const json = async (res: Response, expected: number, what: string) => {
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${what}: expected ${expected}, got ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, any>) : {};
  };
  const post = (path: string, body: unknown) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await json(await post('/api/auth/register', { email, password, companyName }), 201, 'register');
  const login = await json(await post('/api/auth/login', { email, password }), 200, 'login');
  const bearer = login.session.access_token as string;
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body: unknown, expected: number) =>
    json(
      await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
      expected,
      `${method} ${path}`,
    );
  return { email, bearer, call };
}
