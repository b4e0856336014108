export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Same cost as verify, against a hash no password matches: keeps "unknown email" as slow as "wrong password". */
  verifyDummy(password: string): Promise<void>;
}
