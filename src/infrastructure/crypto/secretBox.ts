import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../ports/secretBox.js';

/**
 * AES-256-GCM with a random 96-bit nonce per secret. Envelope: `v1:<nonce>:<tag>:<ciphertext>`
 * (base64url), so the key can be rotated later by adding a `v2`.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('MASTER_KEY must decode to 32 bytes');
  return {
    seal(plain) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1:${nonce.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
    },
    open(sealed) {
      const [version, nonce, tag, ct] = sealed.split(':');
      if (version !== 'v1' || !nonce || !tag || ct === undefined) throw new Error('sealed secret has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** MASTER_KEY as 32 bytes in base64 (44 chars) or hex (64 chars). */
export function parseMasterKey(value: string): Buffer {
  const v = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes, base64 or hex encoded');
  return key;
}
