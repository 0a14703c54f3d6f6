// The user's messages not recorded yet: painted at once ('sending'), handed to the server with the
// client's message_id, dropped from here when their journal row arrives (the record wins), and
// marked 'orphaned' (with a retry) when no record comes in time or the send fails. A message over
// the server's body limit is refused here, before it leaves, so the draft can be kept.
import type { Message } from './reducer.ts';

/** What the server takes in one body (functions/app.ts BODY_LIMIT_BYTES), less room for the envelope. */
export const MESSAGE_LIMIT_BYTES = 256 * 1024;
const ENVELOPE_BYTES = 200;
export const ORPHAN_MS = 10_000;

export class TooLongError extends Error {
  constructor(readonly bytes: number) {
    super(`too long (${Math.ceil(bytes / 1024)} KB, limit ${MESSAGE_LIMIT_BYTES / 1024} KB)`);
  }
}

/** Bytes a message takes on the wire (UTF-8, JSON-escaped). */
export function messageBytes(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).length;
}

export interface OutboxDeps {
  /** POSTs the message; rejects when it was not accepted. */
  post(projectId: string, text: string, messageId: string): Promise<void>;
  /** Whether the journal holds the message's record already. */
  recorded(messageId: string): boolean;
  now(): string;
  changed(): void;
  setTimer?(fn: () => void, ms: number): unknown;
}

export class Outbox {
  private local = new Map<string, Message>();

  constructor(private readonly d: OutboxDeps) {}

  /** Messages sent from here and not recorded yet. */
  get messages(): ReadonlyMap<string, Message> {
    return this.local;
  }

  /** The journal recorded it: the record takes over. */
  settle(messageId: string): void {
    if (this.local.delete(messageId)) this.d.changed();
  }

  async send(projectId: string, text: string, messageId: string): Promise<void> {
    const bytes = messageBytes(text) + ENVELOPE_BYTES;
    if (bytes > MESSAGE_LIMIT_BYTES) throw new TooLongError(bytes);
    this.local.set(messageId, { message_id: messageId, project_id: projectId, text, status: 'sending', seq: null, created_at: this.d.now() });
    this.d.changed();
    (this.d.setTimer ?? setTimeout)(() => this.orphan(messageId), ORPHAN_MS);
    try {
      await this.d.post(projectId, text, messageId);
    } catch (err) {
      this.orphan(messageId);
      throw err;
    }
  }

  async retry(messageId: string): Promise<void> {
    const m = this.local.get(messageId);
    if (m) await this.send(m.project_id, m.text, messageId);
  }

  private orphan(messageId: string): void {
    const m = this.local.get(messageId);
    if (!m || m.status !== 'sending' || this.d.recorded(messageId)) return;
    this.local.set(messageId, { ...m, status: 'orphaned' });
    this.d.changed();
  }
}
