import { describe, expect, it } from 'vitest';
import {
  classifyWebhookJson,
  classifyWebhookPayload,
  MAX_TEXT_LENGTH,
  type WebhookPayload,
} from '../../../../src/domain/platformWebhooks/payload.js';

function expectKind<K extends WebhookPayload['kind']>(p: WebhookPayload, kind: K): Extract<WebhookPayload, { kind: K }> {
  expect(p.kind, p.kind === 'invalid' ? p.issues : undefined).toBe(kind);
  return p as Extract<WebhookPayload, { kind: K }>;
}

const nativeInbox = {
  message_id: 913_574_209,
  type: 'from_client',
  text: 'Do you ship to Berlin?',
  transport: 'telegram',
  client_id: 51_234_567,
  operator_id: null,
  dialog_id: 7_700_001,
  channel_id: 31_337,
  request_id: 880_001,
  attachments: [],
  is_new_client: false,
  client: { id: 51_234_567, phone: '+49 30 1234567', name: 'Anna', assigned_name: null, external_id: 'ext-9' },
  extra_data: { utm: 'spring' },
  hook_type: 'inbox',
  event_time: '2025-11-20T10:15:30.123Z',
};

describe('webhook payload: the spec\'s simple inbound message', () => {
  it('{text, client_id, channel_id, transport} is a customer message', () => {
    const body = { text: 'Hello', client_id: 'c-1', channel_id: 'ch-9', transport: 'whatsapp' };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message).toEqual({ text: 'Hello', clientId: 'c-1', channelId: 'ch-9', transport: 'whatsapp', raw: body });
  });

  it('keeps the optional platform fields when they are sent', () => {
    const body = {
      text: 'Hi',
      client_id: 'c-1',
      channel_id: 'ch-9',
      transport: 'viber',
      message_id: 'm-1',
      request_id: 5,
      dialog_id: '6',
      attachments: [{ link: 'https://cdn.example/1.jpg', name: '1.jpg' }],
      client: { id: 'c-1', name: 'Bo', phone: 4930123 },
      event_time: 1_763_633_730,
    };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message).toEqual({
      text: 'Hi',
      clientId: 'c-1',
      channelId: 'ch-9',
      transport: 'viber',
      messageId: 'm-1',
      requestId: 5,
      dialogId: '6',
      attachments: [{ link: 'https://cdn.example/1.jpg', name: '1.jpg' }],
      client: { id: 'c-1', name: 'Bo', phone: '4930123' },
      eventTime: 1_763_633_730,
      raw: body,
    });
  });

  it('an empty text is accepted when attachments carry the content', () => {
    const body = { text: '', client_id: 1, channel_id: 2, transport: 'telegram', attachments: [{ link: 'x' }] };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message.text).toBe('');
    expect(p.message.attachments).toEqual([{ link: 'x' }]);
  });

  it('a missing or null text is read as empty when attachments exist', () => {
    const body = { text: null, client_id: 1, channel_id: 2, transport: 'telegram', attachments: [{ link: 'x' }] };
    expect(expectKind(classifyWebhookPayload(body), 'customer_message').message.text).toBe('');
  });

  it('text up to the cap is accepted', () => {
    const body = { text: 'a'.repeat(MAX_TEXT_LENGTH), client_id: 1, channel_id: 2, transport: 't' };
    expect(classifyWebhookPayload(body).kind).toBe('customer_message');
  });
});

describe('webhook payload: platform ids keep the type they arrived with', () => {
  it('numeric ids stay numbers', () => {
    const p = expectKind(classifyWebhookPayload(nativeInbox), 'customer_message');
    expect(p.message.clientId).toBe(51_234_567);
    expect(p.message.channelId).toBe(31_337);
    expect(p.message.messageId).toBe(913_574_209);
    expect(p.message.requestId).toBe(880_001);
    expect(p.message.dialogId).toBe(7_700_001);
  });

  it('string ids stay strings, even when they look numeric', () => {
    const body = { ...nativeInbox, client_id: '51234567', channel_id: '31337', message_id: '913574209' };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message.clientId).toBe('51234567');
    expect(p.message.channelId).toBe('31337');
    expect(p.message.messageId).toBe('913574209');
  });

  it('status event ids stay as given', () => {
    const n = expectKind(classifyWebhookPayload({ hook_type: 'close_dialog', request_id: 12, dialog_id: 34 }), 'status_event');
    expect([n.requestId, n.dialogId]).toEqual([12, 34]);
    const s = expectKind(
      classifyWebhookPayload({ hook_type: 'close_dialog', request_id: '12', dialog_id: '34' }),
      'status_event',
    );
    expect([s.requestId, s.dialogId]).toEqual(['12', '34']);
  });
});

describe('webhook payload: the platform\'s native bodies', () => {
  it('hook_type "inbox" with type "from_client" is a customer message with every extra field kept', () => {
    const p = expectKind(classifyWebhookPayload(nativeInbox), 'customer_message');
    expect(p.message).toMatchObject({
      text: 'Do you ship to Berlin?',
      transport: 'telegram',
      type: 'from_client',
      attachments: [],
      client: { id: 51_234_567, name: 'Anna', phone: '+49 30 1234567' },
      eventTime: '2025-11-20T10:15:30.123Z',
    });
    expect(p.message.raw).toEqual(nativeInbox);
    expect(p.message.raw.extra_data).toEqual({ utm: 'spring' });
  });

  it('takes the client id from client.id when client_id is absent', () => {
    const { client_id: _omit, ...body } = nativeInbox;
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message.clientId).toBe(51_234_567);
  });

  it('null optional fields read as absent', () => {
    const body = { ...nativeInbox, dialog_id: null, request_id: null, message_id: null, client: null, event_time: null };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message).not.toHaveProperty('dialogId');
    expect(p.message).not.toHaveProperty('requestId');
    expect(p.message).not.toHaveProperty('messageId');
    expect(p.message).not.toHaveProperty('client');
    expect(p.message).not.toHaveProperty('eventTime');
  });

  it('hook_type "outbox" is an operator message (recorded, never answered)', () => {
    const body = { ...nativeInbox, hook_type: 'outbox', type: 'to_client', text: 'We do!', operator_id: 17 };
    const p = expectKind(classifyWebhookPayload(body), 'operator_message');
    expect(p.message).toMatchObject({ text: 'We do!', clientId: 51_234_567, channelId: 31_337, type: 'to_client' });
    expect(p.message.raw.operator_id).toBe(17);
  });

  it.each([
    ['to_client', 'inbox of our own reply'],
    ['system', 'system notice'],
    ['autoreply', 'autoreply'],
  ])('hook_type "inbox" with type "%s" (%s) is ignored', (type) => {
    const p = expectKind(classifyWebhookPayload({ ...nativeInbox, type }), 'ignored');
    expect(p.reason).toContain(type);
  });

  it('hook_type "inbox" without a type is ignored', () => {
    const { type: _omit, ...body } = nativeInbox;
    expect(classifyWebhookPayload(body).kind).toBe('ignored');
  });

  it.each(['new_client', 'new_request', 'add_tag_to_client', 'Close_Dialog'])('hook_type "%s" is acknowledged and ignored', (hookType) => {
    const p = expectKind(classifyWebhookPayload({ hook_type: hookType, client_id: 1 }), 'ignored');
    expect(p.reason).toContain(hookType);
  });
});

describe('webhook payload: status events (hook_type decides the action)', () => {
  it('close_dialog → session_close', () => {
    const body = { hook_type: 'close_dialog', request_id: 880_001, dialog_id: 7_700_001 };
    expect(classifyWebhookPayload(body)).toEqual({
      kind: 'status_event',
      hookType: 'close_dialog',
      action: 'session_close',
      requestId: 880_001,
      dialogId: 7_700_001,
      raw: body,
    });
  });

  it('close_request → session_close, dialog_id optional', () => {
    const body = { hook_type: 'close_request', request_id: 880_001 };
    expect(classifyWebhookPayload(body)).toEqual({
      kind: 'status_event',
      hookType: 'close_request',
      action: 'session_close',
      requestId: 880_001,
      raw: body,
    });
  });

  it('dialog_transferred → session_transfer_external, with dialog_id and event_time kept', () => {
    const body = { hook_type: 'dialog_transferred', request_id: 5, dialog_id: 6, event_time: '2025-11-20T10:00:00Z', operator_id: 3 };
    const p = expectKind(classifyWebhookPayload(body), 'status_event');
    expect(p).toMatchObject({
      hookType: 'dialog_transferred',
      action: 'session_transfer_external',
      requestId: 5,
      dialogId: 6,
      eventTime: '2025-11-20T10:00:00Z',
    });
    expect(p.raw.operator_id).toBe(3);
  });
});

describe('webhook payload: invalid bodies (answered 400 VALIDATION_ERROR), naming the field', () => {
  const message = { text: 'Hello', client_id: 'c-1', channel_id: 'ch-9', transport: 'whatsapp' };
  const rows: Array<[string, unknown, string]> = [
    ['null', null, '(body)'],
    ['a string', 'hello', '(body)'],
    ['a number', 42, '(body)'],
    ['an array', [message], '(body)'],
    ['an empty object', {}, 'channel_id'],
    ['text that is not a string', { ...message, text: 123 }, 'text'],
    ['an empty text without attachments', { ...message, text: '' }, 'text'],
    ['no text and no attachments', { client_id: 1, channel_id: 2, transport: 't' }, 'text'],
    ['an empty text with an empty attachments list', { ...message, text: '', attachments: [] }, 'text'],
    ['text over the cap', { ...message, text: 'a'.repeat(MAX_TEXT_LENGTH + 1) }, 'text'],
    ['no client_id anywhere', { text: 'x', channel_id: 1, transport: 't' }, 'client_id'],
    ['client_id as a boolean', { ...message, client_id: true }, 'client_id'],
    ['client_id as an empty string', { ...message, client_id: '' }, 'client_id'],
    ['client_id as a fraction', { ...message, client_id: 1.5 }, 'client_id'],
    ['client_id as an object', { ...message, client_id: { id: 1 } }, 'client_id'],
    ['channel_id missing', { text: 'x', client_id: 1, transport: 't' }, 'channel_id'],
    ['transport missing', { text: 'x', client_id: 1, channel_id: 2 }, 'transport'],
    ['transport empty', { ...message, transport: '' }, 'transport'],
    ['attachments not an array', { ...message, attachments: 'pic.jpg' }, 'attachments'],
    ['client not an object', { ...message, client: 'Anna' }, 'client'],
    ['client.name not a string', { ...message, client: { id: 1, name: 5 } }, 'client.name'],
    ['message_id as a boolean', { ...message, message_id: false }, 'message_id'],
    ['event_time as an object', { ...message, event_time: {} }, 'event_time'],
    ['hook_type not a string', { ...message, hook_type: 1 }, 'hook_type'],
    ['an inbox message without channel_id', { ...nativeInbox, channel_id: undefined }, 'channel_id'],
    ['an outbox message with text as a number', { ...nativeInbox, hook_type: 'outbox', text: 1 }, 'text'],
    ['a status event without request_id', { hook_type: 'close_dialog', dialog_id: 1 }, 'request_id'],
    ['a status event with request_id null', { hook_type: 'close_request', request_id: null }, 'request_id'],
    ['a status event with request_id as a boolean', { hook_type: 'close_dialog', request_id: true }, 'request_id'],
    ['a status event with dialog_id as an array', { hook_type: 'close_dialog', request_id: 1, dialog_id: [1] }, 'dialog_id'],
    ['a transfer without dialog_id', { hook_type: 'dialog_transferred', request_id: 1 }, 'dialog_id'],
  ];

  it.each(rows)('%s', (_label, body, field) => {
    const p = expectKind(classifyWebhookPayload(body), 'invalid');
    expect(p.issues).toContain(field);
  });

  it('issues name the field but never echo its value', () => {
    const p = expectKind(classifyWebhookPayload({ ...message, client_id: { secret: 'do-not-log-me' } }), 'invalid');
    expect(p.issues).not.toContain('do-not-log-me');
  });
});

describe('webhook payload: prototype pollution cannot ride in', () => {
  it.each([
    ['__proto__ at the top level', '{"text":"x","client_id":1,"channel_id":2,"transport":"t","__proto__":{"polluted":true}}'],
    ['__proto__ nested in client', '{"text":"x","client_id":1,"channel_id":2,"transport":"t","client":{"id":1,"__proto__":{"polluted":true}}}'],
    ['__proto__ inside an attachment', '{"text":"x","client_id":1,"channel_id":2,"transport":"t","attachments":[{"__proto__":{"polluted":true}}]}'],
    ['constructor.prototype', '{"text":"x","client_id":1,"channel_id":2,"transport":"t","constructor":{"prototype":{"polluted":true}}}'],
    ['on a status event', '{"hook_type":"close_dialog","request_id":1,"extra":{"__proto__":{"polluted":true}}}'],
  ])('a body with %s is invalid', (_label, json) => {
    const p = expectKind(classifyWebhookJson(json), 'invalid');
    expect(p.issues).toContain('forbidden key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('raw is a fresh plain copy, not the object that was passed in', () => {
    const body = { ...nativeInbox, extra_data: { utm: 'spring' } };
    const p = expectKind(classifyWebhookPayload(body), 'customer_message');
    expect(p.message.raw).not.toBe(body);
    expect(p.message.raw.extra_data).not.toBe(body.extra_data);
    expect(Object.getPrototypeOf(p.message.raw)).toBe(Object.prototype);
  });

  it('a non-JSON value inside the body (a Date, a function) is invalid', () => {
    expect(classifyWebhookPayload({ text: 'x', client_id: 1, channel_id: 2, transport: 't', at: new Date() }).kind).toBe('invalid');
    expect(classifyWebhookPayload({ text: 'x', client_id: 1, channel_id: 2, transport: 't', f: () => 1 }).kind).toBe('invalid');
  });

  it('absurdly deep nesting is invalid rather than recursed into', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const p = expectKind(classifyWebhookPayload({ text: 'x', client_id: 1, channel_id: 2, transport: 't', deep }), 'invalid');
    expect(p.issues).toContain('nested deeper');
  });
});

describe('webhook payload: classifying the raw JSON text', () => {
  it('text that is not JSON is invalid', () => {
    expect(classifyWebhookJson('{"text":')).toEqual({ kind: 'invalid', issues: '(body): not valid JSON' });
    expect(classifyWebhookJson('')).toEqual({ kind: 'invalid', issues: '(body): not valid JSON' });
  });

  it('valid JSON is classified like the parsed object', () => {
    const json = JSON.stringify(nativeInbox);
    expect(classifyWebhookJson(json)).toEqual(classifyWebhookPayload(nativeInbox));
  });
});
