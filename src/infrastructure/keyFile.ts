import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A secret generated on first start and kept in DATA_DIR readable by the owner only (0600), so a
 * fresh clone needs no configuration and restarts keep tokens and ciphertexts valid.
 */
export function loadOrCreateKeyFile(path: string, bytes = 32): Buffer {
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== bytes) throw new Error(`key file ${path} does not hold ${bytes} bytes of base64`);
    chmodSync(path, 0o600);
    return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(bytes);
  writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}
