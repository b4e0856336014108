import nodemailer from 'nodemailer';
import type { Mailer } from '../../ports/mailer.js';

/** SMTP through nodemailer (`SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`); the URL holds credentials, so it is never logged. */
export function createSmtpMailer(smtp: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(smtp.url, { from: smtp.from });
  return {
    async send(message) {
      await transport.sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
