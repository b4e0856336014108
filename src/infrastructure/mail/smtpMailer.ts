import type { Transporter } from 'nodemailer';
import type { Mailer } from '../../ports/mailer.js';

/**
 * SMTP through nodemailer (`SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`); the URL holds credentials, so it is never logged.
 * nodemailer is loaded with the first mail, not at start-up.
 */
export function createSmtpMailer(smtp: { url: string; from: string }): Mailer {
  let transport: Promise<Transporter> | undefined;
  const connect = () => (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtp.url, { from: smtp.from })));
  return {
    async send(message) {
      await (await connect()).sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
