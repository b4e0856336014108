/**
 * A numeric setting of a bench: `--name=value` on the command line (`npm run bench:x -- --name=value`), else
 * the environment variable `env`, else `fallback`.
 */
export function numberOption(name: string, env: string, fallback: number): number {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  const raw = flag !== undefined ? flag.slice(name.length + 3) : process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} / ${env}: expected a number ≥ 0, got ${JSON.stringify(raw)}`);
  return value;
}
