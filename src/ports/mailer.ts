/** Outbound email (optional: without SMTP configured the service sends none, and links are shown instead). */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}
