/** Encrypts secrets (webhook secrets, platform and LLM API keys) before they enter an event. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}
